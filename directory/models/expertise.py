"""The expertise index's vectors: what a sentence-embedding model makes of each paper and
each profile (directory.services.expertise), stored so that every app host shares them."""

from __future__ import annotations

from sqlalchemy import BigInteger, Index, Integer, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from directory.models.base import Base

__all__ = ["ExpertiseVector"]


class ExpertiseVector(Base):
    """One embedded text: a paper's title and abstract (``kind`` "publication") or a profile's
    interests, biography, projects and recruiting notices (``kind`` "person")."""

    __tablename__ = "directory_expertise_vectors"
    __table_args__ = (
        UniqueConstraint("kind", "object_id"),
        # Covers the one statement each question begins with (the matrices' key: count, highest
        # id and sum of stamps by kind), so that it never reads the vectors themselves.
        Index(None, "kind", "id", "stamp"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    object_id: Mapped[int] = mapped_column(Integer, nullable=False)
    #: The model that made the vector ("wordllama-l2-supercat-256"): another model's vectors
    #: are not comparable and are rebuilt.
    model: Mapped[str] = mapped_column(String(64), nullable=False)
    #: A digest of the model and the text embedded: unchanged text is not embedded again, and
    #: ``flask directory check`` finds vectors out of step.
    digest: Mapped[str] = mapped_column(String(40), nullable=False)
    #: A random number written with each row: the in-process matrix of every worker is reloaded
    #: when the table's count, highest id or sum of stamps moves.
    stamp: Mapped[int] = mapped_column(BigInteger, nullable=False)
    #: The unit vector, little-endian float32.
    vector: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
