"""Development and the embedded demo (`make run`): debug on, a fixed development secret."""

from casino.settings.base import *  # noqa: F403
from casino.settings.base import env_bool

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = SECRET_KEY or "development-only-secret-key-not-for-production-use-0123456789"  # noqa: F405
