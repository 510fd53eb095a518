FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

COPY pyproject.toml README.md ./
COPY config ./config
COPY games ./games
COPY accounts ./accounts
COPY leaderboards ./leaderboards
COPY frontend ./frontend
COPY manage.py ./

RUN pip install . \
    && SECRET_KEY=collectstatic-build-only python manage.py collectstatic --noinput

RUN useradd --system --no-create-home app
USER app

EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "config.asgi:application"]
