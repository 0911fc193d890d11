//! GitHub Actions' expression language, the part a job's `if:` uses, evaluated as the
//! runner does (docs.github.com, "Evaluate expressions in workflows and actions"):
//! property lookup and function names ignore case, `==` compares loosely and strings
//! without regard to case, `&&` and `||` give the operand that decided, and `null`,
//! `false`, `0`, `NaN` and `''` are falsy. So a test checks what a condition admits by
//! running it, never by reading its text.

use serde_json::Value;

/// `expression` (without `${{ }}`) against `context` (`{"github": {...}}`), as a job's
/// `if:` takes it: truthy or not. Status functions answer as in a job that has not
/// failed.
pub fn admits(expression: &str, context: &Value) -> bool {
    let tokens = tokens(expression);
    let mut parser = Parser { tokens: &tokens, at: 0, context };
    let value = parser.or();
    assert_eq!(parser.at, tokens.len(), "unread tokens in {expression:?}: {:?}", &tokens[parser.at..]);
    truthy(&value)
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Text(String),
    Number(f64),
    Name(String),
    Op(&'static str),
}

fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if c.is_whitespace() {
            at += 1;
        } else if c == '\'' {
            let mut text = String::new();
            at += 1;
            loop {
                match (chars.get(at), chars.get(at + 1)) {
                    (Some('\''), Some('\'')) => (text.push('\''), at += 2),
                    (Some('\''), _) => break,
                    (Some(c), _) => (text.push(*c), at += 1),
                    (None, _) => panic!("an unclosed string in {text:?}"),
                };
            }
            at += 1;
            out.push(Token::Text(text));
        } else if c.is_ascii_digit() {
            let start = at;
            while chars.get(at).is_some_and(|c| c.is_ascii_digit() || *c == '.') {
                at += 1;
            }
            out.push(Token::Number(chars[start..at].iter().collect::<String>().parse().unwrap()));
        } else if c.is_alphabetic() || c == '_' {
            let start = at;
            while chars.get(at).is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '-') {
                at += 1;
            }
            out.push(Token::Name(chars[start..at].iter().collect()));
        } else {
            let two: String = chars[at..(at + 2).min(chars.len())].iter().collect();
            let op = ["&&", "||", "==", "!=", "<=", ">="]
                .into_iter()
                .find(|op| *op == two)
                .or_else(|| ["!", "<", ">", "(", ")", ",", ".", "[", "]"].into_iter().find(|op| op.starts_with(c)))
                .unwrap_or_else(|| panic!("no expression token at {c:?}"));
            at += op.len();
            out.push(Token::Op(op));
        }
    }
    out
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    context: &'a Value,
}

impl Parser<'_> {
    fn eat(&mut self, op: &str) -> bool {
        let found = matches!(self.tokens.get(self.at), Some(Token::Op(at)) if *at == op);
        if found {
            self.at += 1;
        }
        found
    }

    fn or(&mut self) -> Value {
        let mut left = self.and();
        while self.eat("||") {
            let right = self.and();
            left = if truthy(&left) { left } else { right };
        }
        left
    }

    fn and(&mut self) -> Value {
        let mut left = self.equality();
        while self.eat("&&") {
            let right = self.equality();
            left = if truthy(&left) { right } else { left };
        }
        left
    }

    fn equality(&mut self) -> Value {
        let mut left = self.comparison();
        loop {
            if self.eat("==") {
                let right = self.comparison();
                left = Value::Bool(equal(&left, &right));
            } else if self.eat("!=") {
                let right = self.comparison();
                left = Value::Bool(!equal(&left, &right));
            } else {
                return left;
            }
        }
    }

    fn comparison(&mut self) -> Value {
        let left = self.unary();
        for op in ["<=", ">=", "<", ">"] {
            if self.eat(op) {
                let (a, b) = (number(&left), number(&self.unary()));
                return Value::Bool(match op {
                    "<=" => a <= b,
                    ">=" => a >= b,
                    "<" => a < b,
                    _ => a > b,
                });
            }
        }
        left
    }

    fn unary(&mut self) -> Value {
        if self.eat("!") {
            return Value::Bool(!truthy(&self.unary()));
        }
        let mut value = self.primary();
        loop {
            if self.eat(".") {
                let Some(Token::Name(name)) = self.tokens.get(self.at).cloned() else { panic!("a name after `.`") };
                self.at += 1;
                value = property(&value, &name);
            } else if self.eat("[") {
                let key = self.or();
                assert!(self.eat("]"), "an unclosed index");
                value = match key {
                    Value::String(name) => property(&value, &name),
                    Value::Number(n) => {
                        value.get(n.as_u64().unwrap_or(u64::MAX) as usize).cloned().unwrap_or(Value::Null)
                    }
                    _ => Value::Null,
                };
            } else {
                return value;
            }
        }
    }

    fn primary(&mut self) -> Value {
        let token = self.tokens.get(self.at).cloned().expect("an expression ends too soon");
        self.at += 1;
        match token {
            Token::Text(text) => Value::String(text),
            Token::Number(n) => serde_json::json!(n),
            Token::Op("(") => {
                let value = self.or();
                assert!(self.eat(")"), "an unclosed parenthesis");
                value
            }
            Token::Name(name) if name == "true" => Value::Bool(true),
            Token::Name(name) if name == "false" => Value::Bool(false),
            Token::Name(name) if name == "null" => Value::Null,
            Token::Name(name) if self.eat("(") => {
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.or());
                        if self.eat(")") {
                            break;
                        }
                        assert!(self.eat(","), "arguments are separated by commas");
                    }
                }
                call(&name.to_lowercase(), &args)
            }
            Token::Name(name) => property(self.context, &name),
            Token::Op(op) => panic!("an expression cannot start with {op}"),
        }
    }
}

fn call(function: &str, args: &[Value]) -> Value {
    let text = |value: &Value| match value {
        Value::String(s) => s.to_lowercase(),
        Value::Null => String::new(),
        other => other.to_string().to_lowercase(),
    };
    Value::Bool(match (function, args) {
        ("contains", [Value::Array(items), item]) => items.iter().any(|e| equal(item, e)),
        ("contains", [Value::Object(_), _]) => false,
        ("contains", [search, item]) => text(search).contains(&text(item)),
        ("startswith", [a, b]) => text(a).starts_with(&text(b)),
        ("endswith", [a, b]) => text(a).ends_with(&text(b)),
        ("fromjson", [Value::String(json)]) => return serde_json::from_str(json).expect("fromJSON of valid JSON"),
        ("success" | "always", []) => true,
        ("failure" | "cancelled", []) => false,
        (other, _) => panic!("no function {other} with {} arguments here", args.len()),
    })
}

/// A property, by name in any case; a missing one is `null`.
fn property(value: &Value, name: &str) -> Value {
    match value {
        Value::Object(map) => {
            map.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map_or(Value::Null, |(_, v)| v.clone())
        }
        _ => Value::Null,
    }
}

fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

fn number(value: &Value) -> f64 {
    match value {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) if s.trim().is_empty() => 0.0,
        Value::String(s) => s.trim().parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

/// `==`: strings without regard to case, other mixed types as numbers, arrays and
/// objects only as themselves.
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(a), Value::String(b)) => a.to_uppercase() == b.to_uppercase(),
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => false,
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        _ => {
            let (a, b) = (number(a), number(b));
            !a.is_nan() && a == b
        }
    }
}
