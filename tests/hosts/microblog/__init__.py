"""Host (d): an app built the way the best-known Flask tutorial (the "mega-tutorial") builds
its microblog: an app factory over module-level extensions (Flask-SQLAlchemy, Flask-Migrate,
Flask-Login, Flask-Babel), Flask-WTF forms, its own users with a preferred language, and a
Bootstrap layout with Bootstrap's script from a CDN and inline scripts of its own (a timestamp
library's init and pop-up code). The directory is embedded as the README says, at /directory,
inside this layout, in the same database.

Its Flask-Babel locale selector is the tutorial's (``request.accept_languages``) or, chosen by
the ``LOCALE_SELECTOR`` setting, one that reads ``g``, the ``session`` or the signed-in user:
each works in the host's requests and fails anywhere else, as the host's own would."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, g, redirect, render_template, request, session, url_for
from flask_babel import Babel, get_locale
from flask_login import LoginManager, UserMixin, current_user, login_user, logout_user
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import FlaskForm
from sqlalchemy import ForeignKey, String, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from werkzeug.security import check_password_hash, generate_password_hash
from wtforms import PasswordField, StringField, SubmitField, TextAreaField
from wtforms.validators import DataRequired, Length

from directory import Directory
from directory.db import enable_sqlite_foreign_keys
from directory.migrate import exclude_directory_tables

LANGUAGES = ["en", "es"]


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)
migrate = Migrate()
login = LoginManager()
babel = Babel()
directory = Directory()
main = Blueprint("main", __name__)


class User(UserMixin, db.Model):
    __tablename__ = "user"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(256))
    locale: Mapped[str | None] = mapped_column(String(5))

    def set_password(self, password: str) -> None:
        self.password_hash = generate_password_hash(password, "pbkdf2:sha256:1000")

    def check_password(self, password: str) -> bool:
        return bool(self.password_hash) and check_password_hash(self.password_hash, password)


class Post(db.Model):
    __tablename__ = "post"

    id: Mapped[int] = mapped_column(primary_key=True)
    body: Mapped[str] = mapped_column(String(140))
    user_id: Mapped[int] = mapped_column(ForeignKey(User.id), index=True)


class LoginForm(FlaskForm):
    username = StringField("Username", validators=[DataRequired()])
    password = PasswordField("Password", validators=[DataRequired()])
    submit = SubmitField("Sign In")


class PostForm(FlaskForm):
    post = TextAreaField("Say something", validators=[DataRequired(), Length(min=1, max=140)])
    submit = SubmitField("Submit")


@login.user_loader
def load_user(user_id: str) -> User | None:
    return db.session.get(User, int(user_id))


# The tutorial's selector, and three others hosts write: each reads something only a request
# of the host has (the request, what its before_request put in g, the session, the user).
SELECTORS = {
    "request": lambda: request.accept_languages.best_match(LANGUAGES),
    "g": lambda: g.locale_choice,
    "session": lambda: session.get("language", "en"),
    "user": lambda: current_user.locale if current_user.is_authenticated else "en",
}


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        SECRET_KEY="you-will-never-guess",
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{Path(app.instance_path) / 'app.db'}",
        LOCALE_SELECTOR="request",
        # The README's embedding steps: a prefix, the host's layout, the host's sign-in.
        DIRECTORY_URL_PREFIX="/directory",
        DIRECTORY_BASE_TEMPLATE="base.html",
        DIRECTORY_DEPARTMENT_NAME="Microblog Department",
        DIRECTORY_IDENTITY_SOURCE="flask_login",
        DIRECTORY_ENGINE=lambda: db.engine,
    )
    app.config.update(test_config or {})

    db.init_app(app)
    with app.app_context():
        enable_sqlite_foreign_keys(db.engine)
    migrate.init_app(app, db, include_object=exclude_directory_tables)
    login.init_app(app)
    login.login_view = "main.login"
    babel.init_app(app, locale_selector=SELECTORS[app.config["LOCALE_SELECTOR"]])
    directory.init_app(app)
    app.register_blueprint(main)
    return app


@main.before_app_request
def before_request() -> None:
    g.locale_choice = request.args.get("hl", "en")
    g.locale = str(get_locale())


@main.route("/", methods=["GET", "POST"])
@main.route("/index", methods=["GET", "POST"])
def index():
    form = PostForm()
    if current_user.is_authenticated and form.validate_on_submit():
        db.session.add(Post(body=form.post.data, user_id=current_user.id))
        db.session.commit()
        return redirect(url_for("main.index"))
    posts = db.session.scalars(select(Post).order_by(Post.id.desc())).all()
    return render_template("index.html", title="Home", form=form, posts=posts)


@main.route("/login", endpoint="login", methods=["GET", "POST"])
def login_view():
    form = LoginForm()
    if form.validate_on_submit():
        user = db.session.scalar(select(User).where(User.username == form.username.data))
        if user is None or not user.check_password(form.password.data):
            return render_template("login.html", title="Sign In", form=form, error=True)
        login_user(user)
        return redirect(url_for("main.index"))
    return render_template("login.html", title="Sign In", form=form)


@main.route("/logout")
def logout():
    logout_user()
    return redirect(url_for("main.index"))
