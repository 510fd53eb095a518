# The Celery application is made when Django starts, so that the web processes send
# solver jobs through it (games.solver_jobs) and workers find the tasks.
from config.celery import app as celery_app

__all__ = ("celery_app",)
