//! Tokens of the formula language (`spec/srpgck.md` §c.1).
//!
//! The longest match wins; on a tie the symbol with the higher left binding power wins, then
//! keywords before identifiers. So `max` is a keyword but `maxi` an identifier, `random(` is
//! the builtin but `random {` a branch head, and `cond`/`switch` are identifiers unless a
//! `{`/`(` follows.

use super::error::{FormulaError, Span};

/// Declares [`Keyword`] with its spellings (one list, so spelling and variant never drift).
macro_rules! keywords {
    ($($variant:ident = $text:literal,)*) => {
        /// A keyword (including the hyphenated ones).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Keyword {
            $(#[doc = concat!("`", $text, "`")] $variant,)*
        }

        impl Keyword {
            /// The keyword spelled `text`, if any.
            pub fn from_text(text: &str) -> Option<Self> {
                // A match, not a search of a table: every word of every formula comes here.
                match text {
                    $($text => Some(Self::$variant),)*
                    _ => None,
                }
            }

            /// How the keyword is written.
            pub fn text(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)*
                }
            }
        }
    };
}

keywords! {
    Div = "div",
    And = "and",
    Or = "or",
    Not = "not",
    If = "if",
    True = "true",
    False = "false",
    F = "f",
    C = "c",
    T = "t",
    Mount = "mount",
    Mounter = "mounter",
    Skill = "skill",
    ReactedSkill = "reacted-skill",
    Item = "item",
    Status = "status",
    Effect = "effect",
    Equip = "equip",
    In = "in",
    By = "by",
    Get = "get",
    First = "first",
    Last = "last",
    Min = "min",
    Max = "max",
    Mean = "mean",
    Sum = "sum",
    Change = "change",
    Increase = "increase",
    Decrease = "decrease",
    NoChange = "no-change",
    Any = "any",
    Default = "default",
    Abs = "abs",
    Trunc = "trunc",
    Root = "root",
    Random = "random",
    Clamp = "clamp",
    Floor = "floor",
    Ceil = "ceil",
    Round = "round",
    Exists = "exists",
    Lookup = "lookup",
}

/// Whether `name` is a keyword, so it cannot be used as a name.
pub fn is_keyword(name: &str) -> bool {
    Keyword::from_text(name).is_some()
}

/// A punctuation symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symbol {
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `^`
    Caret,
    /// `<`
    Less,
    /// `>`
    Greater,
    /// `<=`
    LessEqual,
    /// `>=`
    GreaterEqual,
    /// `==`
    EqualEqual,
    /// `!=`
    NotEqual,
    /// `(`
    OpenParen,
    /// `)`
    CloseParen,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `;`
    Semicolon,
    /// `{`
    OpenBrace,
    /// `}`
    CloseBrace,
    /// `.`
    Dot,
}

impl Symbol {
    /// How the symbol is written.
    pub fn text(self) -> &'static str {
        match self {
            Self::Plus => "+",
            Self::Minus => "-",
            Self::Star => "*",
            Self::Slash => "/",
            Self::Percent => "%",
            Self::Caret => "^",
            Self::Less => "<",
            Self::Greater => ">",
            Self::LessEqual => "<=",
            Self::GreaterEqual => ">=",
            Self::EqualEqual => "==",
            Self::NotEqual => "!=",
            Self::OpenParen => "(",
            Self::CloseParen => ")",
            Self::Comma => ",",
            Self::Colon => ":",
            Self::Semicolon => ";",
            Self::OpenBrace => "{",
            Self::CloseBrace => "}",
            Self::Dot => ".",
        }
    }
}

/// A branch head: one token including its opening bracket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BranchHead {
    /// `targeted-side {`
    TargetedSide,
    /// `targeter-side {`
    TargeterSide,
    /// `random {`
    Random,
    /// `cond {`
    Cond,
    /// `switch (`
    Switch,
}

/// A token kind; names borrow the formula's text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TokenKind<'a> {
    /// A number literal (never negative: `-` is an operator).
    Number(f64),
    /// A name.
    Ident(&'a str),
    /// A keyword.
    Keyword(Keyword),
    /// Punctuation.
    Symbol(Symbol),
    /// A branch head.
    Branch(BranchHead),
    /// The end of the text.
    End,
}

/// A token with where it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Token<'a> {
    /// What it is.
    pub kind: TokenKind<'a>,
    /// Where it is (byte offsets).
    pub span: Span,
}

/// What an ASCII byte can be in a token, as bits: looked up once per byte (every formula of a
/// project is lexed when it loads, so the lexer's inner loops are worth keeping short).
const WORD: u8 = 1;
/// A decimal digit.
const DIGIT: u8 = 2;
/// Whitespace or a control character.
const SPACE: u8 = 4;

#[allow(clippy::indexing_slicing)] // `byte` < 128 in a 256-entry table, checked at compile time anyway
const BYTE_CLASSES: [u8; 256] = {
    let mut classes = [0; 256];
    let mut byte = 0;
    while byte < 128 {
        let b = byte as u8;
        classes[byte] = if b.is_ascii_digit() {
            WORD | DIGIT
        } else if b.is_ascii_alphabetic() || b == b'_' {
            WORD
        } else if b.is_ascii_whitespace() || b.is_ascii_control() {
            SPACE
        } else {
            0
        };
        byte += 1;
    }
    classes
};

fn byte_class(byte: u8) -> u8 {
    BYTE_CLASSES.get(usize::from(byte)).copied().unwrap_or(0)
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whitespace: any Unicode whitespace, and control characters (so formulas may span lines).
fn is_space(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// Splits `text` into tokens, ending with [`TokenKind::End`].
pub fn tokenize(text: &str) -> Result<Vec<Token<'_>>, FormulaError> {
    let mut lexer = Lexer::new(text);
    let mut tokens = Vec::new();
    loop {
        let token = lexer.next_token()?;
        tokens.push(token);
        if token.kind == TokenKind::End {
            return Ok(tokens);
        }
    }
}

/// Reads the tokens of a text one at a time.
#[derive(Clone, Debug)]
pub struct Lexer<'a> {
    text: &'a str,
    /// Byte offset of the next token (or whitespace before it).
    at: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Self { text, at: 0 }
    }

    /// Skips the rest of the text: from now on only the end.
    pub fn stop(&mut self) {
        self.at = self.text.len();
    }

    /// The next token; [`TokenKind::End`] at the end (and after it).
    pub fn next_token(&mut self) -> Result<Token<'a>, FormulaError> {
        let text = self.text;
        let bytes = text.as_bytes();
        // Works on bytes: everything but whitespace and error messages is ASCII.
        while let Some(&byte) = bytes.get(self.at) {
            let start = self.at;
            let class = byte_class(byte);
            if class & SPACE != 0 {
                self.at += 1;
                continue;
            }
            let remaining = text.get(start..).unwrap_or_default();
            if !byte.is_ascii()
                && let Some(c) = remaining.chars().next()
                && is_space(c)
            {
                self.at += c.len_utf8();
                continue;
            }
            let next_is_digit = bytes.get(start + 1).is_some_and(|next| byte_class(*next) & DIGIT != 0);
            let (kind, len) = if class & DIGIT != 0 || (byte == b'.' && next_is_digit) {
                let len = remaining
                    .bytes()
                    .position(|d| !(byte_class(d) & DIGIT != 0 || d == b'.'))
                    .unwrap_or(remaining.len());
                let literal = remaining.get(..len).unwrap_or_default();
                let value = parse_number(literal).ok_or_else(|| {
                    FormulaError::new(format!("`{literal}` is not a number"), Span::new(start, start + len))
                })?;
                // 310 digits and more round to infinity, which no literal can write back.
                if value.is_infinite() {
                    return Err(FormulaError::new(
                        "this number is too large (numbers go up to about 1.8 × 10^308)",
                        Span::new(start, start + len),
                    ));
                }
                (TokenKind::Number(value), len)
            } else if class & WORD != 0 {
                lex_word(remaining)
            } else {
                lex_symbol(remaining).ok_or_else(|| {
                    let c = remaining.chars().next().unwrap_or_default();
                    let message = match c {
                        '=' => "`=` is not an operator; compare with `==`".to_owned(),
                        '!' => "`!` is not an operator; write `not x` or `a != b`".to_owned(),
                        _ => format!("`{c}` cannot be used in a formula"),
                    };
                    FormulaError::new(message, Span::new(start, start + c.len_utf8()))
                })?
            };
            self.at = start + len;
            return Ok(Token { kind, span: Span::new(start, start + len) });
        }
        Ok(Token { kind: TokenKind::End, span: Span::new(text.len(), text.len()) })
    }
}

/// A number literal (digits with at most one `.`).
fn parse_number(literal: &str) -> Option<f64> {
    // Clinger's fast path: with at most 15 digits the digits are an exact integer w and
    // w / 10^k (k ≤ 15) is one correctly rounded division, so this equals the full parse.
    const POWERS: [f64; 16] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
    let mut digits: u64 = 0;
    let mut count = 0;
    let mut decimals = None;
    for byte in literal.bytes() {
        match byte {
            b'0'..=b'9' => {
                digits = digits * 10 + u64::from(byte - b'0');
                count += 1;
                if let Some(decimals) = decimals.as_mut() {
                    *decimals += 1;
                }
            }
            b'.' if decimals.is_none() => decimals = Some(0),
            _ => return None,
        }
        if count > 15 {
            return literal.parse().ok();
        }
    }
    if count == 0 {
        return None;
    }
    let scale = POWERS.get(decimals.unwrap_or(0))?;
    Some(digits as f64 / scale)
}

/// A word: identifier, keyword, hyphenated keyword or branch head. Returns the token and its
/// length in bytes.
fn lex_word(text: &str) -> (TokenKind<'_>, usize) {
    let word_len = text.bytes().position(|b| byte_class(b) & WORD == 0).unwrap_or(text.len());
    let word = text.get(..word_len).unwrap_or_default();
    // Branch heads: the word, optional whitespace, then the opening bracket.
    let head = |name: &str, open: char, head: BranchHead| -> Option<(TokenKind<'_>, usize)> {
        let after = text.strip_prefix(name)?;
        let gap = after.len() - after.trim_start_matches(is_space).len();
        after.get(gap..)?.starts_with(open).then(|| (TokenKind::Branch(head), name.len() + gap + 1))
    };
    // Hyphenated keywords, when nothing name-like follows.
    let hyphenated = |spelling: &str, keyword: Keyword| -> Option<(TokenKind<'_>, usize)> {
        let after = text.strip_prefix(spelling)?;
        (!after.starts_with(is_ident_char)).then_some((TokenKind::Keyword(keyword), spelling.len()))
    };
    let special = match word {
        "targeted" => head("targeted-side", '{', BranchHead::TargetedSide),
        "targeter" => head("targeter-side", '{', BranchHead::TargeterSide),
        "random" => head("random", '{', BranchHead::Random),
        "cond" => head("cond", '{', BranchHead::Cond),
        "switch" => head("switch", '(', BranchHead::Switch),
        "reacted" => hyphenated("reacted-skill", Keyword::ReactedSkill),
        "no" => hyphenated("no-change", Keyword::NoChange),
        _ => None,
    };
    if let Some(found) = special {
        return found;
    }
    match Keyword::from_text(word) {
        Some(keyword) => (TokenKind::Keyword(keyword), word_len),
        None => (TokenKind::Ident(word), word_len),
    }
}

fn lex_symbol(text: &str) -> Option<(TokenKind<'static>, usize)> {
    let bytes = text.as_bytes();
    let second_is_equals = bytes.get(1) == Some(&b'=');
    let (symbol, len) = match *bytes.first()? {
        b'=' if second_is_equals => (Symbol::EqualEqual, 2),
        b'!' if second_is_equals => (Symbol::NotEqual, 2),
        b'<' if second_is_equals => (Symbol::LessEqual, 2),
        b'>' if second_is_equals => (Symbol::GreaterEqual, 2),
        b'+' => (Symbol::Plus, 1),
        b'-' => (Symbol::Minus, 1),
        b'*' => (Symbol::Star, 1),
        b'/' => (Symbol::Slash, 1),
        b'%' => (Symbol::Percent, 1),
        b'^' => (Symbol::Caret, 1),
        b'<' => (Symbol::Less, 1),
        b'>' => (Symbol::Greater, 1),
        b'(' => (Symbol::OpenParen, 1),
        b')' => (Symbol::CloseParen, 1),
        b',' => (Symbol::Comma, 1),
        b':' => (Symbol::Colon, 1),
        b';' => (Symbol::Semicolon, 1),
        b'{' => (Symbol::OpenBrace, 1),
        b'}' => (Symbol::CloseBrace, 1),
        b'.' => (Symbol::Dot, 1),
        _ => return None,
    };
    Some((TokenKind::Symbol(symbol), len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind<'_>> {
        tokenize(text).unwrap().into_iter().map(|token| token.kind).collect()
    }

    #[test]
    fn keywords_identifiers_and_branch_heads() {
        use TokenKind::*;
        assert_eq!(kinds("max maxi"), vec![Keyword(self::Keyword::Max), Ident("maxi"), End]);
        assert_eq!(kinds("random(1)")[0], Keyword(self::Keyword::Random));
        assert_eq!(kinds("random {")[0], Branch(BranchHead::Random));
        assert_eq!(kinds("random{")[0], Branch(BranchHead::Random));
        assert_eq!(kinds("cond")[0], Ident("cond"));
        assert_eq!(kinds("cond {")[0], Branch(BranchHead::Cond));
        assert_eq!(kinds("switch (x)")[0], Branch(BranchHead::Switch));
        assert_eq!(kinds("switch")[0], Ident("switch"));
        assert_eq!(kinds("targeted-side"), vec![Ident("targeted"), Symbol(self::Symbol::Minus), Ident("side"), End]);
        assert_eq!(kinds("targeted-side {")[0], Branch(BranchHead::TargetedSide));
        assert_eq!(kinds("reacted-skill.x")[0], Keyword(self::Keyword::ReactedSkill));
        assert_eq!(kinds("no-change")[0], Keyword(self::Keyword::NoChange));
        assert_eq!(kinds("cost iffy equipment")[0], Ident("cost"));
    }

    #[test]
    fn numbers_and_symbols() {
        use TokenKind::*;
        assert_eq!(kinds(".5 5. 12"), vec![Number(0.5), Number(5.0), Number(12.0), End]);
        assert_eq!(kinds("a<=b")[1], Symbol(self::Symbol::LessEqual));
        assert_eq!(kinds("c.x")[1], Symbol(self::Symbol::Dot));
        assert!(tokenize("1.5.2").is_err());
        for literal in
            ["0.1", "0.3", "12.75", "3.14159", "123456789012345", "1234567890123456789", "9007199254740993", "5.", ".5"]
        {
            assert_eq!(parse_number(literal), literal.parse().ok(), "{literal}");
        }
        assert!(tokenize("a = b").unwrap_err().message.contains("=="));
        assert!(tokenize("!a").is_err());
        assert!(tokenize("a # b").is_err());
    }

    #[test]
    fn newlines_and_tabs_are_whitespace() {
        assert_eq!(kinds("1\n+\t2").len(), 4);
    }
}
