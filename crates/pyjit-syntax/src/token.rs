//! The tokens the grammar consumes: what the raw lexer produces after the indentation layer has
//! added `NEWLINE`/`INDENT`/`DEDENT`, with literal values already decoded.

use crate::ast::FStringPart;
use std::fmt;

/// One string literal piece before implicit concatenation.
#[derive(Clone, Debug, PartialEq)]
pub enum StrPiece {
    Str(String),
    Bytes(Vec<u8>),
    FString(Vec<FStringPart>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Name(String),
    Int(i128),
    Float(f64),
    Imag(f64),
    Str(StrPiece),
    Newline,
    Indent,
    Dedent,
    /// Synthetic first token selecting the module entry of the grammar.
    StartModule,
    /// Synthetic first token selecting the expression entry (f-string fields, `parse_expr`).
    StartExpr,
    // Keywords (soft keywords such as `match`, `case`, `type` are plain names).
    False,
    None,
    True,
    And,
    As,
    Assert,
    Async,
    Await,
    Break,
    Class,
    Continue,
    Def,
    Del,
    Elif,
    Else,
    Except,
    Finally,
    For,
    From,
    Global,
    If,
    Import,
    In,
    Is,
    Lambda,
    Nonlocal,
    Not,
    Or,
    Pass,
    Raise,
    Return,
    Try,
    While,
    With,
    Yield,
    // Brackets.
    LPar,
    RPar,
    LSqb,
    RSqb,
    LBrace,
    RBrace,
    // Operators and delimiters.
    Colon,
    Comma,
    Semi,
    Plus,
    Minus,
    Star,
    Slash,
    VBar,
    Amper,
    Less,
    Greater,
    Equal,
    Dot,
    Percent,
    EqEqual,
    NotEqual,
    LessEqual,
    GreaterEqual,
    Tilde,
    Circumflex,
    LeftShift,
    RightShift,
    DoubleStar,
    DoubleSlash,
    At,
    Rarrow,
    Ellipsis,
    ColonEqual,
    PlusEqual,
    MinusEqual,
    StarEqual,
    SlashEqual,
    PercentEqual,
    AmperEqual,
    VBarEqual,
    CircumflexEqual,
    LeftShiftEqual,
    RightShiftEqual,
    DoubleStarEqual,
    DoubleSlashEqual,
    AtEqual,
}

/// Keywords by spelling.
pub fn keyword(s: &str) -> Option<Tok> {
    Some(match s {
        "False" => Tok::False,
        "None" => Tok::None,
        "True" => Tok::True,
        "and" => Tok::And,
        "as" => Tok::As,
        "assert" => Tok::Assert,
        "async" => Tok::Async,
        "await" => Tok::Await,
        "break" => Tok::Break,
        "class" => Tok::Class,
        "continue" => Tok::Continue,
        "def" => Tok::Def,
        "del" => Tok::Del,
        "elif" => Tok::Elif,
        "else" => Tok::Else,
        "except" => Tok::Except,
        "finally" => Tok::Finally,
        "for" => Tok::For,
        "from" => Tok::From,
        "global" => Tok::Global,
        "if" => Tok::If,
        "import" => Tok::Import,
        "in" => Tok::In,
        "is" => Tok::Is,
        "lambda" => Tok::Lambda,
        "nonlocal" => Tok::Nonlocal,
        "not" => Tok::Not,
        "or" => Tok::Or,
        "pass" => Tok::Pass,
        "raise" => Tok::Raise,
        "return" => Tok::Return,
        "try" => Tok::Try,
        "while" => Tok::While,
        "with" => Tok::With,
        "yield" => Tok::Yield,
        _ => return None,
    })
}

impl Tok {
    /// The fixed spelling of a keyword, operator or bracket.
    pub fn spelling(&self) -> Option<&'static str> {
        use Tok::*;
        Some(match self {
            False => "False",
            None => "None",
            True => "True",
            And => "and",
            As => "as",
            Assert => "assert",
            Async => "async",
            Await => "await",
            Break => "break",
            Class => "class",
            Continue => "continue",
            Def => "def",
            Del => "del",
            Elif => "elif",
            Else => "else",
            Except => "except",
            Finally => "finally",
            For => "for",
            From => "from",
            Global => "global",
            If => "if",
            Import => "import",
            In => "in",
            Is => "is",
            Lambda => "lambda",
            Nonlocal => "nonlocal",
            Not => "not",
            Or => "or",
            Pass => "pass",
            Raise => "raise",
            Return => "return",
            Try => "try",
            While => "while",
            With => "with",
            Yield => "yield",
            LPar => "(",
            RPar => ")",
            LSqb => "[",
            RSqb => "]",
            LBrace => "{",
            RBrace => "}",
            Colon => ":",
            Comma => ",",
            Semi => ";",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            VBar => "|",
            Amper => "&",
            Less => "<",
            Greater => ">",
            Equal => "=",
            Dot => ".",
            Percent => "%",
            EqEqual => "==",
            NotEqual => "!=",
            LessEqual => "<=",
            GreaterEqual => ">=",
            Tilde => "~",
            Circumflex => "^",
            LeftShift => "<<",
            RightShift => ">>",
            DoubleStar => "**",
            DoubleSlash => "//",
            At => "@",
            Rarrow => "->",
            Ellipsis => "...",
            ColonEqual => ":=",
            PlusEqual => "+=",
            MinusEqual => "-=",
            StarEqual => "*=",
            SlashEqual => "/=",
            PercentEqual => "%=",
            AmperEqual => "&=",
            VBarEqual => "|=",
            CircumflexEqual => "^=",
            LeftShiftEqual => "<<=",
            RightShiftEqual => ">>=",
            DoubleStarEqual => "**=",
            DoubleSlashEqual => "//=",
            AtEqual => "@=",
            Name(_) | Int(_) | Float(_) | Imag(_) | Str(_) | Newline | Indent | Dedent
            | StartModule | StartExpr => return Option::None,
        })
    }

    pub(crate) fn is_keyword(&self) -> bool {
        self.spelling()
            .is_some_and(|s| s.starts_with(|c: char| c.is_ascii_alphabetic()))
    }

    /// Can this token begin an expression?
    pub(crate) fn starts_expr(&self) -> bool {
        use Tok::*;
        matches!(
            self,
            Name(_)
                | Int(_)
                | Float(_)
                | Imag(_)
                | Str(_)
                | False
                | None
                | True
                | Not
                | Lambda
                | Await
                | LPar
                | LSqb
                | LBrace
                | Plus
                | Minus
                | Tilde
                | Ellipsis
                | Star
        )
    }
}

/// How a token is named in an error message (``name `x` ``, `` `)` ``, "end of line").
impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Name(n) => write!(f, "name `{n}`"),
            Tok::Int(v) => write!(f, "number `{v}`"),
            Tok::Float(_) | Tok::Imag(_) => write!(f, "number"),
            Tok::Str(_) => write!(f, "string"),
            Tok::Newline => write!(f, "end of line"),
            Tok::Indent => write!(f, "indent"),
            Tok::Dedent => write!(f, "dedent"),
            Tok::StartModule | Tok::StartExpr => write!(f, "start of input"),
            t => write!(f, "`{}`", t.spelling().unwrap_or("?")),
        }
    }
}
