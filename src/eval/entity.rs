//! What `eval` grades: an entity, its kind and its text (pure). How entities are found in a
//! text is [`super::entities`] (and [`super::commands`] for shell commands), which both build
//! them; `docs/EVAL.md` defines the kinds in prose.

/// What kind of thing an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A file or directory path.
    Path,
    /// A shell command: its program, and its subcommand where the program has them.
    Command,
    /// A code name: snake_case, camelCase, CamelCase, SCREAMING_CASE.
    Identifier,
    /// A long command-line flag (`--release`).
    Flag,
    /// An environment variable (`$HOME`, `RUST_LOG=`).
    Env,
    /// An error: an error or exception type, a compiler error code, an errno name, or the
    /// message after `error:`.
    Error,
    /// A number with its unit (`12 ms`, `95%`, `3 tests`).
    Number,
    /// An http(s) URL.
    Url,
    /// A sentence of the user's with don't / do not / never / must / only.
    Constraint,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 9] = [
        Kind::Path,
        Kind::Command,
        Kind::Identifier,
        Kind::Flag,
        Kind::Env,
        Kind::Error,
        Kind::Number,
        Kind::Url,
        Kind::Constraint,
    ];

    /// Its name in output.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Path => "path",
            Kind::Command => "command",
            Kind::Identifier => "identifier",
            Kind::Flag => "flag",
            Kind::Env => "env",
            Kind::Error => "error",
            Kind::Number => "number",
            Kind::Url => "url",
            Kind::Constraint => "constraint",
        }
    }
}

/// One entity as found: its kind and its text, which is also what it is compared by (a number
/// is written as digits and lowercase unit, `12ms`; an error message in lowercase words).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entity {
    /// Its kind.
    pub kind: Kind,
    /// Its text.
    pub text: String,
}

impl Entity {
    pub(super) fn new(kind: Kind, text: impl Into<String>) -> Self {
        Entity {
            kind,
            text: text.into(),
        }
    }
}
