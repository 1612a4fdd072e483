//! A Pratt parser for the formula language, with the binding powers of `spec/srpgck.md` §c.3.
//!
//! Deliberate differences from the reference, all listed in FORMAT.md: parentheses are kept
//! (no flattening of `a - (b - c)`); a lookup path is one primary, so `-c.PA` is `-(c.PA)`;
//! `t.mount`, `t.mounter` and `t.status` read the target; repeated facing sides are errors.

use super::ast::{
    Ast, AstKind, BinaryOp, Builtin, Case, Change, EffectSearch, EquipSearch, Holder, Lookup, Merge, Scope, Side,
};
use super::error::{FormulaError, Span};
use super::lexer::{BranchHead, Keyword, Lexer, Symbol, Token, TokenKind};

/// How deeply a formula may nest before it is refused (keeps the parser's stack bounded).
pub const MAX_DEPTH: usize = 64;

/// How many binary operators one formula may have. A chain such as `1 + 1 + …` parses in a
/// loop but builds a tree as tall as the chain is long, and every pass over the tree (folding,
/// compiling, printing, tracing) recurses over that height: bounding the chain bounds their
/// stacks (with [`MAX_DEPTH`], a tree is at most about this tall).
pub const MAX_OPERATORS: usize = 1_000;

/// Parses a whole formula.
pub fn parse(text: &str) -> Result<Ast, FormulaError> {
    let mut parser = Parser {
        lexer: Lexer::new(text),
        current: Token { kind: TokenKind::End, span: Span::default() },
        ahead: None,
        previous: Span::default(),
        lex_error: None,
        depth: 0,
        operators: 0,
    };
    parser.current = parser.lex();
    let parsed = parser.expr(0).and_then(|ast| {
        let next = parser.peek();
        if next.kind == TokenKind::End {
            Ok(ast)
        } else {
            Err(FormulaError::new(
                format!("unexpected {} after the end of the formula", describe(&next.kind)),
                next.span,
            ))
        }
    });
    // The parser saw the end where the text could not be split into tokens: that is the error.
    match parser.lex_error {
        Some(error) => Err(error),
        None => parsed,
    }
}

fn describe(kind: &TokenKind<'_>) -> String {
    match kind {
        TokenKind::Number(value) => format!("number `{value}`"),
        TokenKind::Ident(name) => format!("`{name}`"),
        TokenKind::Keyword(keyword) => format!("`{}`", keyword.text()),
        TokenKind::Symbol(symbol) => format!("`{}`", symbol.text()),
        TokenKind::Branch(head) => match head {
            BranchHead::TargetedSide => "`targeted-side {`".to_owned(),
            BranchHead::TargeterSide => "`targeter-side {`".to_owned(),
            BranchHead::Random => "`random {`".to_owned(),
            BranchHead::Cond => "`cond {`".to_owned(),
            BranchHead::Switch => "`switch (`".to_owned(),
        },
        TokenKind::End => "the end of the formula".to_owned(),
    }
}

/// Reads tokens as it goes (no token list: most formulas are parsed once and dropped).
/// Whether a token can begin a lookup (a name, or a scope such as `c`, `f`, `equip`).
fn starts_lookup(kind: &TokenKind<'_>) -> bool {
    matches!(
        kind,
        TokenKind::Ident(_)
            | TokenKind::Keyword(
                Keyword::F
                    | Keyword::C
                    | Keyword::T
                    | Keyword::Mount
                    | Keyword::Mounter
                    | Keyword::Skill
                    | Keyword::ReactedSkill
                    | Keyword::Item
                    | Keyword::Status
                    | Keyword::Equip
                    | Keyword::Effect
            )
    )
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    current: Token<'a>,
    /// The token after `current`, once something looked that far.
    ahead: Option<Token<'a>>,
    /// Where the last consumed token was.
    previous: Span,
    /// The first token error: from there on the parser sees the end.
    lex_error: Option<FormulaError>,
    depth: usize,
    /// Binary operators read so far (at most [`MAX_OPERATORS`]).
    operators: usize,
}

type Parsed<T> = Result<T, FormulaError>;

impl<'a> Parser<'a> {
    /// The next token from the text; the end once the text has an error.
    fn lex(&mut self) -> Token<'a> {
        match self.lexer.next_token() {
            Ok(token) => token,
            Err(error) => {
                let at = error.span.start;
                self.lex_error.get_or_insert(error);
                self.lexer.stop();
                Token { kind: TokenKind::End, span: Span::new(at, at) }
            }
        }
    }

    fn peek(&self) -> Token<'a> {
        self.current
    }

    fn peek_kind(&self) -> &TokenKind<'a> {
        &self.current.kind
    }

    /// The kind of the token after the next one.
    fn peek_second(&mut self) -> TokenKind<'a> {
        if self.ahead.is_none() {
            self.ahead = Some(self.lex());
        }
        self.ahead.map_or(TokenKind::End, |token| token.kind)
    }

    fn advance(&mut self) -> Token<'a> {
        let token = self.current;
        if token.kind != TokenKind::End {
            self.previous = token.span;
            self.current = match self.ahead.take() {
                Some(next) => next,
                None => self.lex(),
            };
        }
        token
    }

    fn at_symbol(&self, symbol: Symbol) -> bool {
        *self.peek_kind() == TokenKind::Symbol(symbol)
    }

    fn at_keyword(&self, keyword: Keyword) -> bool {
        *self.peek_kind() == TokenKind::Keyword(keyword)
    }

    /// Consumes `symbol` or fails with "expected `symbol` {context}".
    fn expect(&mut self, symbol: Symbol, context: impl std::fmt::Display) -> Parsed<Span> {
        let token = self.peek();
        if token.kind == TokenKind::Symbol(symbol) {
            self.advance();
            Ok(token.span)
        } else {
            Err(FormulaError::new(
                format!("expected `{}` {context}, found {}", symbol.text(), describe(&token.kind)),
                token.span,
            ))
        }
    }

    fn binary_op(&self) -> Option<BinaryOp> {
        Some(match self.peek_kind() {
            TokenKind::Symbol(Symbol::Plus) => BinaryOp::Add,
            TokenKind::Symbol(Symbol::Minus) => BinaryOp::Sub,
            TokenKind::Symbol(Symbol::Star) => BinaryOp::Mul,
            TokenKind::Symbol(Symbol::Slash) => BinaryOp::Div,
            TokenKind::Keyword(Keyword::Div) => BinaryOp::IntDiv,
            TokenKind::Symbol(Symbol::Percent) => BinaryOp::Rem,
            TokenKind::Symbol(Symbol::Caret) => BinaryOp::Pow,
            TokenKind::Symbol(Symbol::EqualEqual) => BinaryOp::Eq,
            TokenKind::Symbol(Symbol::NotEqual) => BinaryOp::Ne,
            TokenKind::Symbol(Symbol::Less) => BinaryOp::Lt,
            TokenKind::Symbol(Symbol::LessEqual) => BinaryOp::Le,
            TokenKind::Symbol(Symbol::Greater) => BinaryOp::Gt,
            TokenKind::Symbol(Symbol::GreaterEqual) => BinaryOp::Ge,
            TokenKind::Keyword(Keyword::And) => BinaryOp::And,
            TokenKind::Keyword(Keyword::Or) => BinaryOp::Or,
            _ => return None,
        })
    }

    /// An expression whose operators bind tighter than `min_power`.
    fn expr(&mut self, min_power: u8) -> Parsed<Ast> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(FormulaError::new(
                format!("the formula nests more than {MAX_DEPTH} levels deep"),
                self.peek().span,
            ));
        }
        let mut left = self.prefix()?;
        while let Some(op) = self.binary_op() {
            let power = op.binding_power();
            if power <= min_power {
                break;
            }
            self.operators += 1;
            if self.operators > MAX_OPERATORS {
                return Err(FormulaError::new(
                    format!(
                        "the formula is too long: it has more than {MAX_OPERATORS} operators; split it into \
                         named formulas"
                    ),
                    self.peek().span,
                ));
            }
            self.advance();
            let right = self.expr(if op.is_right_associative() { power - 1 } else { power })?;
            let span = left.span.to(right.span);
            left = Ast::new(AstKind::Binary(op, Box::new([left, right])), span);
        }
        if self.at_symbol(Symbol::Dot) {
            return Err(FormulaError::new("`.` can only follow a lookup such as `c.hp`", self.peek().span));
        }
        self.depth -= 1;
        Ok(left)
    }

    /// A value: literal, prefix operator, parenthesised expression, call, branch or lookup.
    fn prefix(&mut self) -> Parsed<Ast> {
        let token = self.peek();
        let start = token.span;
        match token.kind {
            TokenKind::Number(value) => {
                self.advance();
                Ok(Ast::new(AstKind::Number(value), start))
            }
            TokenKind::Keyword(Keyword::True | Keyword::False) => {
                self.advance();
                Ok(Ast::new(AstKind::Bool(token.kind == TokenKind::Keyword(Keyword::True)), start))
            }
            TokenKind::Symbol(Symbol::Minus) => {
                self.advance();
                let operand = self.expr(200)?;
                let span = start.to(operand.span);
                Ok(Ast::new(AstKind::Neg(Box::new(operand)), span))
            }
            TokenKind::Keyword(Keyword::Not) => {
                self.advance();
                let operand = self.expr(4)?;
                let span = start.to(operand.span);
                Ok(Ast::new(AstKind::Not(Box::new(operand)), span))
            }
            TokenKind::Keyword(Keyword::If) => self.if_expression(start),
            TokenKind::Symbol(Symbol::OpenParen) => self.parenthesised(start),
            TokenKind::Keyword(keyword) if builtin(keyword).is_some() => self.call(keyword, start),
            TokenKind::Keyword(Keyword::Exists) => self.exists(start),
            TokenKind::Keyword(Keyword::Lookup) => self.lookup_or(start),
            TokenKind::Branch(head) => {
                self.advance();
                self.branch(head, start)
            }
            TokenKind::Ident(name) if self.peek_second() == TokenKind::Symbol(Symbol::OpenParen) => {
                Err(FormulaError::new(
                    format!(
                        "`{name}` is not a builtin; the builtins are abs, trunc, root, mean, min, max, random, \
                         clamp, floor, ceil, round, any, exists and lookup"
                    ),
                    start,
                ))
            }
            TokenKind::Ident(_) => self.lookup_value(),
            TokenKind::Keyword(_) if starts_lookup(&token.kind) => self.lookup_value(),
            TokenKind::Keyword(keyword) => Err(FormulaError::new(
                format!("`{}` is a keyword and cannot be used as a value here", keyword.text()),
                start,
            )),
            TokenKind::Symbol(symbol) => {
                Err(FormulaError::new(format!("expected a value, found `{}`", symbol.text()), start))
            }
            TokenKind::End => Err(FormulaError::new("the formula ends too early: expected a value", start)),
        }
    }

    fn if_expression(&mut self, start: Span) -> Parsed<Ast> {
        self.advance();
        let condition = self.expr(1)?;
        self.expect(Symbol::Colon, "after the condition of `if`")?;
        let then = self.expr(0)?;
        if !self.at_symbol(Symbol::Semicolon) {
            return Err(FormulaError::new(
                format!(
                    "`if` needs an else part: `if condition: value; otherwise`, found {}",
                    describe(self.peek_kind())
                ),
                self.peek().span,
            ));
        }
        self.advance();
        let otherwise = self.expr(0)?;
        let span = start.to(otherwise.span);
        Ok(Ast::new(AstKind::If(Box::new([condition, then, otherwise])), span))
    }

    fn parenthesised(&mut self, start: Span) -> Parsed<Ast> {
        self.advance();
        let inner = self.expr(0)?;
        let close = self.expect(Symbol::CloseParen, "to close `(`")?;
        if let AstKind::Lookup(mut lookup) = inner.kind {
            // `(c.x).y` reads `c.x.y`: dots may follow a parenthesised lookup.
            let mut end = close;
            // `t.isNull`, `effect` and effect searches take no name: `(effect(…)).x` is refused.
            let named = !matches!(
                lookup.scope,
                Scope::TargetIsNull
                    | Scope::TargetIsNotNull
                    | Scope::EffectValue
                    | Scope::ReactedEffectValue
                    | Scope::Effect(_)
            );
            while named && self.at_symbol(Symbol::Dot) {
                self.advance();
                let (name, span) = self.name_part()?;
                if !lookup.name.is_empty() {
                    lookup.name.push('.');
                }
                lookup.name.push_str(name);
                end = span;
            }
            return Ok(Ast::new(AstKind::Lookup(lookup), start.to(end)));
        }
        Ok(Ast::new(inner.kind, start.to(close)))
    }

    fn exists(&mut self, start: Span) -> Parsed<Ast> {
        self.advance();
        self.expect(Symbol::OpenParen, "after `exists`")?;
        let (lookup, _) = self.lookup_argument("exists")?;
        let close = self.expect(Symbol::CloseParen, "after the lookup of `exists(…)` (it takes one lookup)")?;
        Ok(Ast::new(AstKind::Exists(lookup), start.to(close)))
    }

    fn lookup_or(&mut self, start: Span) -> Parsed<Ast> {
        self.advance();
        self.expect(Symbol::OpenParen, "after `lookup`")?;
        let (lookup, _) = self.lookup_argument("lookup")?;
        self.expect(Symbol::Comma, "after the lookup: `lookup(name, default)` takes a default")?;
        let default = self.expr(5)?;
        let close = self.expect(Symbol::CloseParen, "after the default of `lookup(name, default)`")?;
        Ok(Ast::new(AstKind::LookupOr(lookup, Box::new(default)), start.to(close)))
    }

    /// A lookup used as a value.
    fn lookup_value(&mut self) -> Parsed<Ast> {
        let (lookup, span) = self.lookup()?;
        if matches!(lookup.scope, Scope::Equip(_)) && lookup.name.is_empty() {
            return Err(FormulaError::new(
                "an equipment search needs the parameter to read, e.g. `equip(weapon).power` \
                 (without one it only works inside exists())",
                span,
            ));
        }
        Ok(Ast::new(AstKind::Lookup(lookup), span))
    }

    fn call(&mut self, keyword: Keyword, start: Span) -> Parsed<Ast> {
        let Some(function) = builtin(keyword) else {
            return Err(FormulaError::new("not a builtin", start));
        };
        self.advance();
        if !self.at_symbol(Symbol::OpenParen) {
            return Err(FormulaError::new(
                format!("`{}` is a builtin; call it like `{}(…)`", function.text(), function.text()),
                start,
            ));
        }
        self.advance();
        let mut args = Vec::new();
        if !self.at_symbol(Symbol::CloseParen) {
            loop {
                // Arguments bind at 5: `max(a < b, 1)` needs parentheses around `a < b`.
                args.push(self.expr(5)?);
                if self.at_symbol(Symbol::Comma) {
                    self.advance();
                    continue;
                }
                break;
            }
        }
        let next = self.peek();
        if next.kind != TokenKind::Symbol(Symbol::CloseParen) {
            let hint = match next.kind {
                TokenKind::Symbol(
                    Symbol::Less
                    | Symbol::LessEqual
                    | Symbol::Greater
                    | Symbol::GreaterEqual
                    | Symbol::EqualEqual
                    | Symbol::NotEqual,
                )
                | TokenKind::Keyword(Keyword::And | Keyword::Or) => {
                    " (put comparisons, `and` and `or` inside an argument in parentheses)"
                }
                _ => "",
            };
            return Err(FormulaError::new(
                format!("expected `,` or `)` in `{}(…)`, found {}{hint}", function.text(), describe(&next.kind)),
                next.span,
            ));
        }
        let close = self.advance().span;
        let span = start.to(close);
        let (low, high) = function.arity();
        if args.len() < low || args.len() > high {
            let expected = match (low, high) {
                (low, high) if low == high => format!("{low}"),
                (low, usize::MAX) => format!("{low} or more"),
                (low, high) => format!("{low} to {high}"),
            };
            return Err(FormulaError::new(
                format!("`{}` takes {expected} arguments, not {}", function.text(), args.len()),
                span,
            ));
        }
        Ok(Ast::new(AstKind::Call(function, args), span))
    }

    /// The lookup argument of `exists(…)` / `lookup(…)`; an equipment search may omit its parameter.
    fn lookup_argument(&mut self, function: &str) -> Parsed<(Lookup, Span)> {
        let starts_lookup = starts_lookup(self.peek_kind());
        if starts_lookup {
            return self.lookup();
        }
        let value = self.expr(5)?;
        Err(FormulaError::new(
            format!("`{function}(…)` takes a lookup such as `c.hp` or `f.bonus`, not a computed value"),
            value.span,
        ))
    }

    /// One name after a `.`: an identifier (keywords are not names).
    fn name_part(&mut self) -> Parsed<(&'a str, Span)> {
        let token = self.advance();
        match token.kind {
            TokenKind::Ident(name) => Ok((name, token.span)),
            TokenKind::Keyword(keyword) => {
                Err(FormulaError::new(format!("`{}` is a keyword and cannot be a name", keyword.text()), token.span))
            }
            other => {
                Err(FormulaError::new(format!("expected a name after `.`, found {}", describe(&other)), token.span))
            }
        }
    }

    /// `first(.name)*`, returning the dotted name and the span of its last part.
    fn dotted(&mut self, first: &str, mut span: Span) -> Parsed<(String, Span)> {
        let mut name = first.to_owned();
        while self.at_symbol(Symbol::Dot) {
            self.advance();
            let (part, part_span) = self.name_part()?;
            name.push('.');
            name.push_str(part);
            span = part_span;
        }
        Ok((name, span))
    }

    /// `.` followed by a dotted name.
    fn dot_name(&mut self, after: &str) -> Parsed<(String, Span)> {
        self.expect(Symbol::Dot, format_args!("after `{after}`"))?;
        let (first, span) = self.name_part()?;
        self.dotted(first, span)
    }

    /// A lookup, from its first token.
    fn lookup(&mut self) -> Parsed<(Lookup, Span)> {
        let first = self.advance();
        let start = first.span;
        let make = |scope: Scope, name: String, end: Span| Ok((Lookup { scope, name }, start.to(end)));
        match first.kind {
            TokenKind::Ident(name) => {
                let (name, end) = self.dotted(name, start)?;
                make(Scope::Auto, name, end)
            }
            // A scope letter alone is a plain name, as in the SRPGCK manual's `a - (b - c)`:
            // only a following `.` makes it a scope.
            TokenKind::Keyword(keyword @ (Keyword::F | Keyword::C | Keyword::T)) if !self.at_symbol(Symbol::Dot) => {
                make(Scope::Auto, keyword.text().to_owned(), start)
            }
            TokenKind::Keyword(Keyword::F) => {
                let (name, end) = self.dot_name("f")?;
                make(Scope::Formula, name, end)
            }
            TokenKind::Keyword(Keyword::C) => self.character(false, start),
            TokenKind::Keyword(Keyword::T) => self.character(true, start),
            TokenKind::Keyword(Keyword::Skill) => {
                self.expect(Symbol::Dot, "after `skill`")?;
                match self.peek_kind() {
                    TokenKind::Keyword(Keyword::Item) => {
                        self.advance();
                        let (name, end) = self.dot_name("skill.item")?;
                        make(Scope::Item, name, end)
                    }
                    TokenKind::Keyword(Keyword::Effect) => {
                        self.advance();
                        self.effect(false, start)
                    }
                    _ => {
                        let (first, span) = self.name_part()?;
                        let (name, end) = self.dotted(first, span)?;
                        make(Scope::Skill, name, end)
                    }
                }
            }
            TokenKind::Keyword(Keyword::Mount) => {
                self.expect(Symbol::Dot, "after `mount`")?;
                if self.at_keyword(Keyword::Equip) {
                    self.advance();
                    return self.equip(Holder::ActorMount, start);
                }
                let (first, span) = self.name_part()?;
                let (name, end) = self.dotted(first, span)?;
                make(Scope::ActorMount, name, end)
            }
            TokenKind::Keyword(Keyword::Mounter) => {
                let (name, end) = self.dot_name("mounter")?;
                make(Scope::ActorMounter, name, end)
            }
            TokenKind::Keyword(Keyword::ReactedSkill) => {
                self.expect(Symbol::Dot, "after `reacted-skill`")?;
                match self.peek_kind() {
                    TokenKind::Keyword(Keyword::Item) => {
                        self.advance();
                        let (name, end) = self.dot_name("reacted-skill.item")?;
                        make(Scope::ReactedItem, name, end)
                    }
                    TokenKind::Keyword(Keyword::Effect) => {
                        let effect = self.advance().span;
                        if self.at_symbol(Symbol::OpenParen) {
                            self.effect(true, start)
                        } else {
                            make(Scope::ReactedEffectValue, String::new(), effect)
                        }
                    }
                    _ => {
                        let (first, span) = self.name_part()?;
                        let (name, end) = self.dotted(first, span)?;
                        make(Scope::ReactedSkill, name, end)
                    }
                }
            }
            TokenKind::Keyword(Keyword::Item) => {
                let (name, end) = self.dot_name("item")?;
                make(Scope::Item, name, end)
            }
            TokenKind::Keyword(Keyword::Status) => {
                let (name, end) = self.dot_name("status")?;
                make(Scope::ActorStatus, name, end)
            }
            TokenKind::Keyword(Keyword::Equip) => self.equip(Holder::Actor, start),
            TokenKind::Keyword(Keyword::Effect) => {
                if self.at_symbol(Symbol::OpenParen) {
                    self.effect(false, start)
                } else {
                    make(Scope::EffectValue, String::new(), start)
                }
            }
            other => Err(FormulaError::new(format!("expected a lookup, found {}", describe(&other)), start)),
        }
    }

    /// After `c` (actor) or `t` (target).
    fn character(&mut self, target: bool, start: Span) -> Parsed<(Lookup, Span)> {
        let who = if target { "t" } else { "c" };
        self.expect(Symbol::Dot, format_args!("after `{who}`"))?;
        let token = self.peek();
        let make = |scope: Scope, name: String, end: Span| Ok((Lookup { scope, name }, start.to(end)));
        match token.kind {
            TokenKind::Ident(name) => {
                self.advance();
                if (name == "isNull" || name == "isNotNull") && !self.at_symbol(Symbol::Dot) {
                    if !target {
                        return Err(FormulaError::new(
                            format!("`{name}` only applies to the target: write `t.{name}`"),
                            token.span,
                        ));
                    }
                    let scope = if name == "isNull" { Scope::TargetIsNull } else { Scope::TargetIsNotNull };
                    return make(scope, String::new(), token.span);
                }
                let (name, end) = self.dotted(name, token.span)?;
                make(if target { Scope::Target } else { Scope::Actor }, name, end)
            }
            TokenKind::Keyword(Keyword::Skill) => {
                // `c.skill.X` and `t.skill.X` both mean the running skill's parameter X.
                self.advance();
                let (name, end) = self.dot_name("skill")?;
                make(Scope::Skill, name, end)
            }
            TokenKind::Keyword(Keyword::Mount) => {
                self.advance();
                self.expect(Symbol::Dot, "after `mount`")?;
                if self.at_keyword(Keyword::Equip) {
                    self.advance();
                    return self.equip(if target { Holder::TargetMount } else { Holder::ActorMount }, start);
                }
                let (first, span) = self.name_part()?;
                let (name, end) = self.dotted(first, span)?;
                make(if target { Scope::TargetMount } else { Scope::ActorMount }, name, end)
            }
            TokenKind::Keyword(Keyword::Mounter) => {
                self.advance();
                let (name, end) = self.dot_name("mounter")?;
                make(if target { Scope::TargetMounter } else { Scope::ActorMounter }, name, end)
            }
            TokenKind::Keyword(Keyword::Status) => {
                self.advance();
                let (name, end) = self.dot_name("status")?;
                make(if target { Scope::TargetStatus } else { Scope::ActorStatus }, name, end)
            }
            TokenKind::Keyword(Keyword::Equip) => {
                self.advance();
                self.equip(if target { Holder::Target } else { Holder::Actor }, start)
            }
            TokenKind::Keyword(Keyword::Effect) if target => {
                self.advance();
                make(Scope::EffectValue, String::new(), token.span)
            }
            TokenKind::Keyword(Keyword::Item) => Err(FormulaError::new(
                "item lookups belong to skills: write `item.NAME` or `skill.item.NAME`",
                token.span,
            )),
            TokenKind::Keyword(keyword) => Err(FormulaError::new(
                format!("`{}` is a keyword and cannot be a stat name after `{who}.`", keyword.text()),
                token.span,
            )),
            other => Err(FormulaError::new(
                format!("expected a name after `{who}.`, found {}", describe(&other)),
                token.span,
            )),
        }
    }

    /// A comma-separated list of names.
    fn names(&mut self) -> Parsed<Vec<String>> {
        let mut names = vec![self.name_part()?.0.to_owned()];
        while self.at_symbol(Symbol::Comma) {
            self.advance();
            names.push(self.name_part()?.0.to_owned());
        }
        Ok(names)
    }

    /// `get first|last|min|max|mean|sum|N`, if present.
    fn merge(&mut self) -> Parsed<Merge> {
        if !self.at_keyword(Keyword::Get) {
            return Ok(Merge::default());
        }
        self.advance();
        let token = self.advance();
        Ok(match token.kind {
            TokenKind::Keyword(Keyword::First) => Merge::First,
            TokenKind::Keyword(Keyword::Last) => Merge::Last,
            TokenKind::Keyword(Keyword::Min) => Merge::Min,
            TokenKind::Keyword(Keyword::Max) => Merge::Max,
            TokenKind::Keyword(Keyword::Mean) => Merge::Mean,
            TokenKind::Keyword(Keyword::Sum) => Merge::Sum,
            TokenKind::Number(n) if n >= 1.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => Merge::Nth(n as u32),
            other => {
                return Err(FormulaError::new(
                    format!(
                        "after `get` write first, last, min, max, mean, sum or a position (1, 2…), not {}",
                        describe(&other)
                    ),
                    token.span,
                ));
            }
        })
    }

    /// After `equip` (the holder already known).
    fn equip(&mut self, holder: Holder, start: Span) -> Parsed<(Lookup, Span)> {
        let mut search = EquipSearch { holder: Some(holder), ..EquipSearch::default() };
        let mut end = self.previous;
        if self.at_symbol(Symbol::OpenParen) {
            self.advance();
            if matches!(self.peek_kind(), TokenKind::Ident(_)) {
                search.categories = self.names()?;
            }
            if self.at_keyword(Keyword::In) {
                self.advance();
                search.slots = self.names()?;
            }
            search.merge = self.merge()?;
            end = self.expect(Symbol::CloseParen, "to close the equipment search")?;
        }
        let mut name = String::new();
        if self.at_symbol(Symbol::Dot) {
            let (parameter, span) = self.dot_name("equip")?;
            name = parameter;
            end = span;
        }
        Ok((Lookup { scope: Scope::Equip(Box::new(search)), name }, start.to(end)))
    }

    /// After `effect` (with `(` next).
    fn effect(&mut self, reacted: bool, start: Span) -> Parsed<(Lookup, Span)> {
        let mut search = EffectSearch { reacted, ..EffectSearch::default() };
        self.expect(Symbol::OpenParen, "after `effect`")?;
        loop {
            let change = match self.peek_kind() {
                TokenKind::Keyword(Keyword::Any) => Change::Any,
                TokenKind::Keyword(Keyword::Change) => Change::Change,
                TokenKind::Keyword(Keyword::Increase) => Change::Increase,
                TokenKind::Keyword(Keyword::Decrease) => Change::Decrease,
                TokenKind::Keyword(Keyword::NoChange) => Change::NoChange,
                _ => break,
            };
            self.advance();
            search.changes.push(change);
            if !self.at_symbol(Symbol::Comma) {
                break;
            }
            self.advance();
        }
        if self.at_keyword(Keyword::In) {
            self.advance();
            search.stats = self.names()?;
        }
        if self.at_keyword(Keyword::By) {
            self.advance();
            search.categories = self.names()?;
        }
        search.merge = self.merge()?;
        let end = self.expect(Symbol::CloseParen, "to close the effect search")?;
        Ok((Lookup { scope: Scope::Effect(Box::new(search)), name: String::new() }, start.to(end)))
    }

    /// Cases `key: value; …` up to `}`; `default` may appear once, anywhere.
    fn cases(&mut self, what: &str) -> Parsed<(Vec<Case>, Option<Box<Ast>>, Span)> {
        let mut cases = Vec::new();
        let mut default: Option<Box<Ast>> = None;
        loop {
            if self.at_keyword(Keyword::Default) {
                let token = self.advance();
                self.expect(Symbol::Colon, "after `default`")?;
                let value = self.expr(0)?;
                if default.is_some() {
                    return Err(FormulaError::new(format!("`{what}` has two `default` cases"), token.span));
                }
                default = Some(Box::new(value));
            } else {
                let key = self.expr(0)?;
                self.expect(Symbol::Colon, format_args!("after a case of `{what}`"))?;
                let value = self.expr(0)?;
                cases.push((key, value));
            }
            let token = self.peek();
            match token.kind {
                TokenKind::Symbol(Symbol::Semicolon) => {
                    self.advance();
                }
                TokenKind::Symbol(Symbol::CloseBrace) => {
                    self.advance();
                    return Ok((cases, default, token.span));
                }
                other => {
                    return Err(FormulaError::new(
                        format!(
                            "expected `;` between the cases of `{what}` or `}}` after them, found {}",
                            describe(&other)
                        ),
                        token.span,
                    ));
                }
            }
        }
    }

    fn branch(&mut self, head: BranchHead, start: Span) -> Parsed<Ast> {
        match head {
            BranchHead::Cond => {
                let (cases, default, end) = self.cases("cond")?;
                Ok(Ast::new(AstKind::Cond(cases, default), start.to(end)))
            }
            BranchHead::Random => {
                let (cases, default, end) = self.cases("random")?;
                Ok(Ast::new(AstKind::RandomBranch(cases, default), start.to(end)))
            }
            BranchHead::Switch => {
                let subject = self.expr(0)?;
                self.expect(Symbol::CloseParen, "after the value of `switch (…)`")?;
                self.expect(Symbol::OpenBrace, "to open the cases of `switch`")?;
                let (cases, default, end) = self.cases("switch")?;
                Ok(Ast::new(AstKind::Switch(Box::new(subject), cases, default), start.to(end)))
            }
            BranchHead::TargetedSide | BranchHead::TargeterSide => {
                let targeted = head == BranchHead::TargetedSide;
                let mut cases: Vec<(Side, Ast)> = Vec::new();
                loop {
                    let token = self.advance();
                    let side = match &token.kind {
                        TokenKind::Ident(name) => Side::from_text(name),
                        TokenKind::Keyword(Keyword::Default) => Some(Side::Default),
                        _ => None,
                    }
                    .ok_or_else(|| {
                        FormulaError::new(
                            format!(
                                "expected a side (front, left, right, back, away, sides, towards or default), found {}",
                                describe(&token.kind)
                            ),
                            token.span,
                        )
                    })?;
                    if cases.iter().any(|(seen, _)| *seen == side) {
                        return Err(FormulaError::new(format!("the side `{}` appears twice", side.text()), token.span));
                    }
                    self.expect(Symbol::Colon, "after the side")?;
                    cases.push((side, self.expr(0)?));
                    let next = self.advance();
                    match next.kind {
                        TokenKind::Symbol(Symbol::Semicolon) => {}
                        TokenKind::Symbol(Symbol::CloseBrace) => {
                            cases.sort_by_key(|(side, _)| *side);
                            return Ok(Ast::new(AstKind::Facing { targeted, cases }, start.to(next.span)));
                        }
                        other => {
                            return Err(FormulaError::new(
                                format!("expected `;` between sides or `}}` after them, found {}", describe(&other)),
                                next.span,
                            ));
                        }
                    }
                }
            }
        }
    }
}

/// The builtin a keyword names (not `exists`/`lookup`, which take a lookup).
fn builtin(keyword: Keyword) -> Option<Builtin> {
    Some(match keyword {
        Keyword::Abs => Builtin::Abs,
        Keyword::Trunc => Builtin::Trunc,
        Keyword::Root => Builtin::Root,
        Keyword::Mean => Builtin::Mean,
        Keyword::Min => Builtin::Min,
        Keyword::Max => Builtin::Max,
        Keyword::Random => Builtin::Random,
        Keyword::Clamp => Builtin::Clamp,
        Keyword::Floor => Builtin::Floor,
        Keyword::Ceil => Builtin::Ceil,
        Keyword::Round => Builtin::Round,
        Keyword::Any => Builtin::Any,
        _ => return None,
    })
}
