"""The directory's data model: every table of the plugin, on one metadata.

Everything lives on :class:`Base`, whose metadata is the plugin's own: every table is prefixed
``directory_`` and no foreign key points into a host table (a host user is referenced by a
stable string key, :attr:`Person.user_key`). This package imports nothing else of the plugin:
importing it registers every table and loads no service.

Vocabulary used throughout:

* a *Person* owns many *entries* (news, education, experience, ...), each with a position in
  its list, a visibility and a version for conflict-safe editing;
* a *Publication* is one shared record per paper; *Authorship* rows keep the authors in print
  order and link department members; *ProfilePublication* holds one person's view of a paper
  (selected / hidden);
* an *AdvisingRelation* joins an advisor and a student, either of whom may be an external name.
"""

from directory.models.accounts import *  # noqa: F403
from directory.models.base import *  # noqa: F403
from directory.models.cache import *  # noqa: F403
from directory.models.claims import *  # noqa: F403
from directory.models.editing import *  # noqa: F403
from directory.models.entries import *  # noqa: F403
from directory.models.entry_kinds import *  # noqa: F403
from directory.models.expertise import *  # noqa: F403
from directory.models.imports import *  # noqa: F403
from directory.models.people import *  # noqa: F403
from directory.models.publications import *  # noqa: F403
from directory.models.search import *  # noqa: F403
from directory.models.sign_in_sessions import *  # noqa: F403
from directory.models.vocabularies import *  # noqa: F403
