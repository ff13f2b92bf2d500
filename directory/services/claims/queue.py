"""Works offered to a person as candidates, and the answers that stick.

A paper goes on a profile by the person's own act (their import, their form), by an
identifier of theirs, or by their accepting a candidate; a printed name alone (a co-author's
import naming them, a harvest by name) only asks. A work the person rejected, or took off
their profile, is known by its keys (:func:`directory.formats.claim_keys.work_keys`) and is
never offered again by any harvest, import or co-author's edit.

Services only flush; the caller's unit of work commits."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from directory import models as m
from directory.formats.claim_keys import work_keys
from directory.formats.harvest.works import HarvestedAuthor, HarvestedWork
from directory.services.claims.evidence import PersonFacts, score_work
from directory.services.publications import AuthorIndex, PublicationIndex, _chunks

#: The reason stored with a rejection.
REJECTED, REMOVED = "rejected", "removed"


# ----------------------------------------------------------------------------- the answers


def rejected_keys(session: Session, person_ids: Iterable[int]) -> dict[int, set[str]]:
    """Each person's rejected work keys."""
    found: dict[int, set[str]] = defaultdict(set)
    for chunk in _chunks(sorted(set(person_ids))):
        rows = session.execute(
            select(m.ClaimRejection.person_id, m.ClaimRejection.work_key).where(
                m.ClaimRejection.person_id.in_(chunk)
            )
        )
        for person_id, key in rows:
            found[person_id].add(key)
    return found


def publication_keys(session: Session, pub: m.Publication) -> list[str]:
    """The keys of a paper: its own (DOI, arXiv id, title and year) and those of every
    harvested work accepted as it (a DBLP key, an OpenAlex id)."""
    keys = work_keys(pub)
    for more in session.scalars(
        select(m.ClaimCandidate.keys).where(m.ClaimCandidate.publication_id == pub.id)
    ):
        keys.extend(k for k in more or () if k not in keys)
    return keys


def remember_rejection(
    session: Session, person_id: int, keys: Iterable[str], title: str | None, reason: str
) -> None:
    """Store that ``person_id`` rejected the work with ``keys`` (each key once)."""
    have = rejected_keys(session, [person_id])[person_id]
    for key in dict.fromkeys(keys):
        if key not in have:
            session.add(
                m.ClaimRejection(
                    person_id=person_id, work_key=key, title=(title or "")[:1000], reason=reason
                )
            )
    session.flush()


def rejections_of(session: Session, person_id: int) -> list[dict[str, Any]]:
    """The person's rejections as their profile document carries them (``"rejected_works"``):
    one item per key, so a restored database still never suggests those works."""
    rows = session.scalars(
        select(m.ClaimRejection)
        .where(m.ClaimRejection.person_id == person_id)
        .order_by(m.ClaimRejection.work_key)
    )
    return [{"key": r.work_key, "title": r.title, "reason": r.reason} for r in rows]


def restore_rejections(
    session: Session, person_id: int, items: Iterable[dict[str, Any]] | None
) -> None:
    """A document's ``"rejected_works"`` added to the person's rejections (a rejection the
    database already holds stays: an import never makes a "not mine" forgotten)."""
    have = rejected_keys(session, [person_id])[person_id]
    for item in items or ():
        if item["key"] not in have:
            have.add(item["key"])
            session.add(m.ClaimRejection(
                person_id=person_id, work_key=item["key"], title=item.get("title"),
                reason=item.get("reason") or REJECTED,
            ))  # fmt: skip
    session.flush()


def unlink_member(pub: m.Publication, person_id: int) -> None:
    """The paper's printed names stop pointing at ``person_id`` (who said it is not theirs):
    plain text, the suggestion answered."""
    for authorship in pub.authorships:
        if person_id in (authorship.person_id, authorship.suggested_person_id):
            authorship.person_id = None
            authorship.suggested_person_id = person_id
            authorship.suggestion_declined = True


def proposal_decided(
    session: Session, pending: m.PendingChange, by: str | None, entity_id: int | None
) -> None:
    """An approver answered ``pending``: the candidate whose "mine" waits on it is accepted
    (approved: ``entity_id`` is the paper it made or changed) or asked again (rejected)."""
    for candidate in session.scalars(
        select(m.ClaimCandidate).where(
            m.ClaimCandidate.pending_change_id == pending.id,
            m.ClaimCandidate.state == m.CLAIM_WAITING,
        )
    ):
        candidate.pending_change_id = None
        approved = pending.status == "approved"
        candidate.state = m.CLAIM_ACCEPTED if approved else m.CLAIM_PENDING
        candidate.decided_at = m.utcnow() if approved else None
        candidate.decided_by = by if approved else None
        if approved:
            candidate.publication_id = candidate.publication_id or entity_id


# ----------------------------------------------------------------------------- co-authors


def list_for_named_members(
    session: Session, pub_ids: Iterable[int], except_people: set[int] = frozenset()
) -> None:
    """The members an interchange document names as authors by their slug (an identifier of
    the directory, not a printed name) list the paper, unless they rejected it (or are
    ``except_people``)."""
    offer_to_coauthors(session, pub_ids, by_identifier=True, except_people=except_people)


def offer_to_coauthors(
    session: Session,
    pub_ids: Iterable[int],
    *,
    by_identifier: bool = False,
    except_people: set[int] = frozenset(),
) -> int:
    """The department members a paper's printed names link to, who do not list it, are asked
    (a candidate each, found by "name"), unless they rejected it: then the name is unlinked.
    Returns how many were asked. Replaces putting the paper on their profiles at once."""
    ids = sorted(set(pub_ids))
    linked: dict[int, list[tuple[int, str]]] = defaultdict(list)
    listing: dict[int, set[int]] = defaultdict(set)
    for chunk in _chunks(ids):
        for pub_id, person_id, name in session.execute(
            select(m.Authorship.publication_id, m.Authorship.person_id, m.Authorship.name).where(
                m.Authorship.publication_id.in_(chunk), m.Authorship.person_id.is_not(None)
            )
        ):
            linked[pub_id].append((person_id, name))
        for pub_id, person_id in session.execute(
            select(m.ProfilePublication.publication_id, m.ProfilePublication.person_id).where(
                m.ProfilePublication.publication_id.in_(chunk)
            )
        ):
            listing[pub_id].add(person_id)
    wanted = [(pub_id, pid, name) for pub_id, names in linked.items() for pid, name in names
              if pid not in listing[pub_id] and pid not in except_people]  # fmt: skip
    if not wanted:
        return 0
    people = {pid for _, pid, _ in wanted}
    rejected = rejected_keys(session, people)
    asked = _asked_keys(session, people)
    listers = dict(session.execute(select(m.Person.id, m.Person.full_name).where(
        m.Person.id.in_({p for ps in listing.values() for p in ps}))).all())  # fmt: skip
    offered = 0
    for pub_id, person_id, name in wanted:
        pub = session.get(m.Publication, pub_id)
        keys = publication_keys(session, pub)
        if rejected[person_id] & set(keys):
            unlink_member(pub, person_id)
            continue
        if by_identifier:
            session.add(m.ProfilePublication(person_id=person_id, publication_id=pub_id))
            listing[pub_id].add(person_id)
            continue
        if asked[person_id] & set(keys):
            continue
        evidence = [{"code": "name_exact", "weight": 20, "detail": name}]
        evidence += [{"code": "coauthor", "weight": 10, "detail": listers[p]}
                     for p in sorted(listing[pub_id]) if p in listers][:3]  # fmt: skip
        session.add(m.ClaimCandidate(
            person_id=person_id, work_key=keys[0], keys=keys, publication_id=pub_id,
            work=_work_of(pub), title=pub.title[:1000], year=pub.year, source="coauthor",
            found_by="name", evidence=evidence, score=sum(e["weight"] for e in evidence),
        ))  # fmt: skip
        asked[person_id].update(keys)
        offered += 1
    session.flush()
    return offered


def _asked_keys(session: Session, person_ids: Iterable[int]) -> dict[int, set[str]]:
    """The keys of every work already a candidate of each person (in any state)."""
    found: dict[int, set[str]] = defaultdict(set)
    for chunk in _chunks(sorted(set(person_ids))):
        for person_id, keys in session.execute(
            select(m.ClaimCandidate.person_id, m.ClaimCandidate.keys).where(
                m.ClaimCandidate.person_id.in_(chunk)
            )
        ):
            found[person_id].update(keys or ())
    return found


def _work_of(pub: m.Publication) -> dict[str, Any]:
    """A directory paper as a harvested work's dict (what a candidate shows)."""
    return asdict(HarvestedWork(
        source="directory", source_key=pub.uid, title=pub.title, year=pub.year,
        month=pub.month, venue=pub.venue, type=pub.type, doi=pub.doi, arxiv_id=pub.arxiv_id,
        authors=tuple(HarvestedAuthor(a.name) for a in pub.authorships), found_by="name",
    ))  # fmt: skip


# ----------------------------------------------------------------------------- harvests


@dataclass
class Offered:
    """What offering one source's works to one person did."""

    fetched: int = 0
    new: int = 0
    known: int = 0
    #: The candidates written (to accept by policy, or for the digest).
    candidates: list[m.ClaimCandidate] = field(default_factory=list)


def work_from_dict(data: dict[str, Any]) -> HarvestedWork:
    """A candidate's stored work back as a :class:`HarvestedWork`."""
    authors = tuple(
        HarvestedAuthor(a["name"], a.get("orcid"), a.get("source_id"),
                        tuple(a.get("affiliations") or ()))
        for a in data.get("authors") or ()
    )  # fmt: skip
    return HarvestedWork(**{**data, "authors": authors})


class Offering:
    """One person's harvest: their answers and candidates read once, each source's works
    matched against them and the directory's papers, the new ones written as candidates."""

    def __init__(
        self, session: Session, person: m.Person, facts: PersonFacts, index: AuthorIndex
    ) -> None:
        self.session, self.person, self.facts, self.index = session, person, facts, index
        self.rejected = rejected_keys(session, [person.id])[person.id]
        self.asked = _asked_keys(session, [person.id])[person.id]
        self.on_profile = set(session.scalars(
            select(m.ProfilePublication.publication_id).where(
                m.ProfilePublication.person_id == person.id)
        ))  # fmt: skip

    def offer(self, works: list[HarvestedWork], *, dry_run: bool = False) -> Offered:
        """Offer ``works`` (one source's for this person); nothing written when ``dry_run``."""
        result = Offered(fetched=len(works))
        fresh: list[tuple[HarvestedWork, list[str]]] = []
        for work in works:
            keys = work_keys(work)
            if not keys or (self.rejected | self.asked) & set(keys):
                result.known += 1
                continue
            self.asked.update(keys)
            fresh.append((work, keys))
        if not fresh:
            return result
        papers = PublicationIndex(self.session, [_as_entry(w) for w, _ in fresh])
        for work, keys in fresh:
            found = papers.match(_as_entry(work)).same
            if found is not None and found in self.on_profile:
                result.known += 1
                continue
            scored = score_work(work, self.facts, self.index)
            result.new += 1
            if dry_run:
                continue
            candidate = m.ClaimCandidate(
                person_id=self.person.id, work_key=keys[0], keys=keys, publication_id=found,
                work=asdict(work), title=work.title[:1000], year=work.year, source=work.source,
                found_by=work.found_by, evidence=scored.evidence, score=scored.score,
            )  # fmt: skip
            self.session.add(candidate)
            result.candidates.append(candidate)
        if result.candidates:
            self.session.flush()
        return result


def _as_entry(work: HarvestedWork) -> dict[str, Any]:
    """A harvested work as the interchange dict the paper index matches."""
    return {
        "title": work.title, "year": work.year, "venue": work.venue, "doi": work.doi,
        "arxiv_id": work.arxiv_id, "authors": [{"name": a.name} for a in work.authors],
    }  # fmt: skip
