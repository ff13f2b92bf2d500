"""Small but real host sites that embed the directory, each the way docs/embedding.md says:

* ``deptsite``: Flask-Login, Flask-SQLAlchemy, Flask-Migrate and CSRFProtect, sharing its
  database with the directory;
* ``flaskr``: the Flask tutorial's shape, raw sqlite3 and ``g.user``, the directory in a
  database of its own;
* ``sso``: single sign-on at the web server (REMOTE_USER), the directory at the site root.

Each host has its own tests too (its own routes must keep working with the directory in).
"""
