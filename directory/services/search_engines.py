"""How each kind of database finds the search index's documents (:mod:`.search`).

* SQLite: the FTS5 virtual table ``directory_search_fts`` (its rowid is the document's id);
* PostgreSQL: a GIN index on a ``tsvector`` expression over the same token columns;
* any other database: ``LIKE`` over the stored tokens.

Each engine gives a select of the documents matching every term of a question and a rank, and
keeps its own structure (if it has one beside the documents table) in step with the
documents. The question is a parameter of the statements of the engines that ``keep``, so that
a statement can be built once and kept for any question (:func:`.search.best_of_each`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from sqlalchemy import (
    Select,
    bindparam,
    case,
    cast,
    column,
    delete,
    func,
    insert,
    literal,
    literal_column,
    select,
    table,
)
from sqlalchemy.dialects.postgresql import TSQUERY
from sqlalchemy.orm import Session

from directory.models import SearchDocument


class Term(Protocol):
    """What an engine reads of a question's term (:class:`directory.services.search.Term`):
    a token, or with ``prefix`` the start of one."""

    @property
    def text(self) -> str: ...

    @property
    def prefix(self) -> bool: ...


FTS_TABLE = "directory_search_fts"
_DOCS = SearchDocument.__table__
_FTS = table(FTS_TABLE, column("rowid"), column("title_tokens"), column("body_tokens"))

#: The tsvector the PostgreSQL GIN index is built on. The migration creates the index on this
#: very expression (unqualified there); keep both identical or the index is not used.
PG_VECTOR_SQL = (
    "(setweight(array_to_tsvector(string_to_array({t}title_tokens, ' ')), 'A') || "
    "setweight(array_to_tsvector(string_to_array({t}body_tokens, ' ')), 'D'))"
)


class SearchEngine:
    """How one kind of database finds documents, and keeps its own structure (if it has one
    beside the documents table) in step with the documents."""

    #: Whether :meth:`matching` gives statements of one shape whatever the question, the
    #: question a parameter (:meth:`parameters`): such a statement can be built once and kept.
    keeps = False
    #: The name of the question's parameter, when ``keeps``.
    question = "search_question"

    def matching(self, terms: Sequence[Term] | None) -> tuple[Select, Any]:
        """A select of the documents matching every term, and a rank (higher is better).
        With ``terms`` None (an engine that ``keeps`` only), the question is a parameter that
        the statement must be given (:meth:`parameters`)."""
        raise NotImplementedError

    def parameters(self, terms: Sequence[Term]) -> dict[str, Any]:
        """The parameters a statement of :meth:`matching` without terms needs for ``terms``."""
        return {self.question: self.query_text(terms)} if self.keeps else {}

    @staticmethod
    def query_text(terms: Sequence[Term]) -> str:
        raise NotImplementedError

    def _question(self, terms: Sequence[Term] | None) -> Any:
        if terms is None:
            return bindparam(self.question, required=True)
        return bindparam(self.question, self.query_text(terms))

    def remove(self, session: Session, ids: Select) -> None:
        """The documents ``ids`` are about to be deleted."""

    def add(self, session: Session, ids: Select) -> None:
        """The documents ``ids`` were just written."""

    def clear(self, session: Session) -> None:
        """Every document is about to be rewritten."""


class _SQLite(SearchEngine):
    """FTS5 with the ``ascii`` tokenizer: it splits on spaces only, since stored tokens hold
    nothing but letters and digits, so it stores exactly our tokens."""

    keeps = True

    @staticmethod
    def query_text(terms: Sequence[Term]) -> str:
        # Every term is quoted; quotes inside are doubled (there are none: terms are words).
        return " ".join(
            '"{}"{}'.format(t.text.replace('"', '""'), "*" if t.prefix else "") for t in terms
        )

    def matching(self, terms: Sequence[Term] | None) -> tuple[Select, Any]:
        rank = -func.bm25(literal_column(FTS_TABLE), 4.0, 1.0)
        stmt = (
            select(SearchDocument)
            .join(_FTS, _FTS.c.rowid == SearchDocument.id)
            .where(literal_column(FTS_TABLE).match(self._question(terms)))
        )
        return stmt, rank

    def remove(self, session: Session, ids: Select) -> None:
        session.execute(delete(_FTS).where(_FTS.c.rowid.in_(ids)))

    def add(self, session: Session, ids: Select) -> None:
        # Rows left behind by anything that bypassed this module must not collide.
        session.execute(delete(_FTS).where(_FTS.c.rowid.in_(ids)))
        session.execute(
            insert(_FTS).from_select(
                ["rowid", "title_tokens", "body_tokens"],
                select(_DOCS.c.id, _DOCS.c.title_tokens, _DOCS.c.body_tokens).where(
                    _DOCS.c.id.in_(ids)
                ),
            )
        )

    def clear(self, session: Session) -> None:
        session.execute(delete(_FTS))


#: Ranking only: a generated column (migration search4_1, which declares it) holding the same
#: tokens with positions and weights (title above body), which ``ts_rank`` needs and
#: ``array_to_tsvector`` does not give; PostgreSQL keeps it in step with the tokens, so ranking
#: a search's matches builds no vector. Matching never uses it.
PG_RANK_COLUMN = f"{FTS_TABLE}_rank"


class _PostgreSQL(SearchEngine):
    """A GIN index on a tsvector built from the stored tokens as they are (array_to_tsvector
    applies no parser and no dictionary); the query is a tsquery cast from quoted lexemes."""

    keeps = True
    vector = literal_column(PG_VECTOR_SQL.format(t="directory_search_documents."))
    rank_vector = literal_column(f"directory_search_documents.{PG_RANK_COLUMN}")

    @staticmethod
    def query_text(terms: Sequence[Term]) -> str:
        def lexeme(text: str) -> str:
            return "'{}'".format(text.replace("\\", "\\\\").replace("'", "''"))

        return " & ".join(lexeme(t.text) + (":*" if t.prefix else "") for t in terms)

    def matching(self, terms: Sequence[Term] | None) -> tuple[Select, Any]:
        query = cast(self._question(terms), TSQUERY)
        stmt = select(SearchDocument).where(self.vector.op("@@", is_comparison=True)(query))
        # Normalisation 1 (divide by 1 + log of the length) favours short documents, as bm25.
        return stmt, func.ts_rank(self.rank_vector, query, 1)


class _Portable(SearchEngine):
    """Any other database: LIKE over the space-separated tokens. No index, so slower on a big
    directory, but the same answers (and writes never fail for want of an engine)."""

    @staticmethod
    def _contains(tokens: Any, term: Term) -> Any:
        spaced = literal(" ") + tokens + literal(" ")
        return spaced.contains(f" {term.text}" + ("" if term.prefix else " "), autoescape=True)

    def matching(self, terms: Sequence[Term] | None) -> tuple[Select, Any]:
        assert terms is not None, "the LIKE engine's statements hold the question's terms"
        d = SearchDocument
        everything = d.title_tokens + literal(" ") + d.body_tokens
        stmt = select(d).where(*(self._contains(everything, t) for t in terms))
        rank = sum(case((self._contains(d.title_tokens, t), 1), else_=0) for t in terms)
        return stmt, rank


#: The engine used for each dialect; any other gets :class:`_Portable`.
ENGINES: dict[str, type[SearchEngine]] = {"sqlite": _SQLite, "postgresql": _PostgreSQL}


def engine_for(session: Session) -> SearchEngine:
    return ENGINES.get(session.get_bind().dialect.name, _Portable)()
