"""The page cache's shared state: one row whose generation moves with every write."""

from __future__ import annotations

from sqlalchemy import (
    Integer,
)
from sqlalchemy.orm import Mapped, mapped_column

from directory.models.base import Base


class CacheState(Base):
    """The single row whose ``generation`` changes with every committed directory write."""

    __tablename__ = "directory_cache_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    generation: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
