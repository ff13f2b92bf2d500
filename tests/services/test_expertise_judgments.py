"""The judged query set of docs/search.md is what it says: every paraphrase shares no word
(function words aside) with the titles and interests of the people judged relevant to it, and
every person judged is in the department the question is asked of."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from directory import models as m
from directory.services.search import FUNCTION_WORDS as _FUNCTION_WORDS
from directory.services.search import tokenize
from tests.support.expertise_judgments import CHINESE, DEMO, TOPICS

#: Words that say nothing of a topic, besides the questions' own function words.
FUNCTION = _FUNCTION_WORDS | {"so", "its", "each", "other", "how", "take", "should", "many"}


def words(*texts: str | None) -> set[str]:
    return {w for w in tokenize(*texts) if w not in FUNCTION}


@pytest.fixture
def demo_texts(db, demo) -> dict[str, set[str]]:
    """Each demo person's words: their interests and their papers' titles."""
    found: dict[str, set[str]] = {}
    for person in db.scalars(select(m.Person)):
        titles = db.scalars(
            select(m.Publication.title)
            .join(m.Authorship, m.Authorship.publication_id == m.Publication.id)
            .where(m.Authorship.person_id == person.id)
        )
        found[person.slug] = words(person.interests, *titles)
    return found


def test_demo_paraphrases_share_no_word_with_the_relevant_work(demo_texts) -> None:
    paraphrases = [j for j in DEMO if j.kind == "paraphrase"]
    assert len(paraphrases) >= 7 and {j.topic for j in paraphrases} == {j.topic for j in DEMO}
    for judged in paraphrases:
        assert set(judged.grades) <= set(demo_texts), judged.query
        for slug in judged.grades:
            shared = words(judged.query) & demo_texts[slug]
            assert not shared, (judged.query, slug, shared)


@pytest.mark.engine_independent
def test_planted_paraphrases_share_no_word_with_their_titles() -> None:
    for topic in TOPICS:
        planted = words(topic.interest, *topic.titles)
        assert words(topic.keyword) <= planted, topic.name
        for paraphrase in topic.paraphrases:
            assert not words(paraphrase) & planted, (paraphrase, words(paraphrase) & planted)


@pytest.mark.engine_independent
def test_every_chinese_question_has_its_english_counterpart() -> None:
    english = {j.query for j in DEMO}
    assert all(question in english for _chinese, question in CHINESE)
