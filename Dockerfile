# The solver compiled with mypyc (scripts/build-solver.sh) in the full image, which
# has a C compiler; the same Python 3.11 runs it below.
FROM python:3.11 AS solver
WORKDIR /src
COPY engine ./engine
COPY solver ./solver
COPY scripts/build-solver.sh ./scripts/
RUN pip install --no-cache-dir "mypy==2.4.1" && scripts/build-solver.sh /usr/local/bin/python

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

COPY pyproject.toml README.md ./
COPY config ./config
COPY api ./api
COPY telemetry ./telemetry
COPY database ./database
COPY engine ./engine
COPY solver ./solver
COPY --from=solver /src/solver/_native*.so /src/solver/_core*.so ./solver/
COPY games ./games
COPY races ./races
COPY realtime ./realtime
COPY accounts ./accounts
COPY leaderboards ./leaderboards
COPY matchmaking ./matchmaking
COPY frontend ./frontend
COPY locale ./locale
COPY scripts/compile_messages.py ./scripts/
COPY deploy ./deploy
COPY manage.py ./

RUN pip install . \
    && python scripts/compile_messages.py \
    && SECRET_KEY=collectstatic-build-only python manage.py collectstatic --noinput

RUN useradd --system --no-create-home app
USER app

EXPOSE 8000
CMD ["python", "-m", "config.serve", "-b", "0.0.0.0", "-p", "8000", "--access-log", "/dev/null", "config.asgi:application"]
