//! Static evaluation of shell words: what an `echo` prints, as far as it is known before run time.

use tree_sitter::Node;

use super::parser::{node_text, node_text_marked};
use super::shell::Dialect;

/// A piece of printed text: known now, or only at run time (kept as its source form).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Literal(String),
    Dynamic(String),
}

/// The text a command prints, as segments; adjacent literals are merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Printed {
    pub segments: Vec<Segment>,
}

impl Printed {
    pub(crate) fn push_literal(&mut self, text: &str) {
        if let Some(Segment::Literal(last)) = self.segments.last_mut() {
            last.push_str(text);
        } else if !text.is_empty() {
            self.segments.push(Segment::Literal(text.to_string()));
        }
    }

    pub(crate) fn push_dynamic(&mut self, source: String) {
        self.segments.push(Segment::Dynamic(source));
    }

    pub(crate) fn append(&mut self, other: Printed) {
        for segment in other.segments {
            match segment {
                Segment::Literal(text) => self.push_literal(&text),
                Segment::Dynamic(source) => self.push_dynamic(source),
            }
        }
    }

    /// The whole text when nothing in it depends on run time.
    pub fn as_literal(&self) -> Option<String> {
        match self.segments.as_slice() {
            [] => Some(String::new()),
            [Segment::Literal(text)] => Some(text.clone()),
            _ => None,
        }
    }

    /// The text's lines (a last empty one left out): literal newlines split it; a run-time part
    /// stays in its line.
    pub fn lines(&self) -> Vec<Printed> {
        let mut lines = vec![Printed::default()];
        for segment in &self.segments {
            match segment {
                Segment::Literal(text) => {
                    for (i, part) in text.split('\n').enumerate() {
                        if i > 0 {
                            lines.push(Printed::default());
                        }
                        if let Some(line) = lines.last_mut() {
                            line.push_literal(part);
                        }
                    }
                }
                Segment::Dynamic(source) => {
                    if let Some(line) = lines.last_mut() {
                        line.push_dynamic(source.clone());
                    }
                }
            }
        }
        if lines.len() > 1 && lines.last().is_some_and(|l| l.segments.is_empty()) {
            lines.pop();
        }
        lines
    }

    /// The literal text before the first run-time segment.
    pub fn literal_prefix(&self) -> &str {
        match self.segments.first() {
            Some(Segment::Literal(text)) => text,
            _ => "",
        }
    }

    /// Source-like rendering: literals as text, run-time parts as their shell source.
    pub fn render(&self) -> String {
        self.segments
            .iter()
            .map(|s| match s {
                Segment::Literal(t) | Segment::Dynamic(t) => t.as_str(),
            })
            .collect()
    }

    /// The segments after the first `skip` bytes of the literal prefix.
    pub fn after_prefix(&self, skip: usize) -> Printed {
        let mut rest = Printed::default();
        for (i, segment) in self.segments.iter().enumerate() {
            match (i, segment) {
                (0, Segment::Literal(text)) => rest.push_literal(&text[skip.min(text.len())..]),
                (_, Segment::Literal(text)) => rest.push_literal(text),
                (_, Segment::Dynamic(src)) => rest.push_dynamic(src.clone()),
            }
        }
        rest
    }
}

/// The name of a run-time segment that is one parameter alone (`$cmd`, `${cmd}`), if it is one.
pub(crate) fn parameter_name(text: &str) -> Option<&str> {
    let name = text.strip_prefix('$')?;
    let name = name
        .strip_prefix('{')
        .and_then(|n| n.strip_suffix('}'))
        .unwrap_or(name);
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .then_some(name)
}

/// Words tree-sitter-bash reads as extra destinations of a redirection that bash reads as the
/// command's own arguments: in `echo 2>/dev/null SUCCESS`, `SUCCESS` is echoed (tree-sitter-bash
/// issue 233). Only redirections that follow the command directly count. A word joined to the
/// one before it by a line continuation (`>/dev/std\⏎out`) is part of the target.
pub(crate) fn swallowed_arguments<'t>(command: Node<'t>, source: &[u8]) -> Vec<Node<'t>> {
    let Some(parent) = command
        .parent()
        .filter(|p| p.kind() == "redirected_statement")
        .filter(|p| p.child_by_field_name("body").map(|b| b.id()) == Some(command.id()))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut cursor = parent.walk();
    for redirect in parent.children_by_field_name("redirect", &mut cursor) {
        if redirect.kind() != "file_redirect" {
            continue;
        }
        let mut inner = redirect.walk();
        let destinations: Vec<Node<'t>> = redirect
            .children_by_field_name("destination", &mut inner)
            .collect();
        out.extend(destinations.windows(2).filter_map(|pair| {
            (!super::context::glued(source, pair[0].end_byte(), pair[1].start_byte()))
                .then_some(pair[1])
        }));
    }
    out
}

/// The value of a redirection's target: its first destination word and the words joined to it
/// by line continuations.
pub(crate) fn target_value(first: Node<'_>, source: &[u8]) -> Printed {
    let mut value = word_value(first, source);
    let mut end = first.end_byte();
    let mut next = first.next_named_sibling();
    while let Some(word) = next.filter(|w| super::context::glued(source, end, w.start_byte())) {
        value.append(word_value(word, source));
        end = word.end_byte();
        next = word.next_named_sibling();
    }
    value
}

/// What `echo ARGS...` prints, as the script's shell prints it: bash's echo takes `-n`, `-e`
/// and `-E` (and combinations) as flags and reads backslash escapes only with `-e`; dash's (sh
/// scripts) takes only `-n` and always reads them. Arguments are joined by spaces.
pub(crate) fn echo_output(command: Node<'_>, source: &[u8], dialect: Dialect) -> Printed {
    let mut printed = Printed::default();
    let mut first = true;
    let mut in_flags = true;
    let mut previous_end: Option<usize> = None;
    let invocation = super::context::invocation(command, source);
    // `/bin/echo` is GNU echo: bash's flags, whatever shell runs the script.
    let dialect = match &invocation {
        Some(i) if i.external => Dialect::Bash,
        _ => dialect,
    };
    let mut escapes = dialect.echo_reads_escapes();
    let own = invocation
        .map(|i| i.arguments(command, source))
        .unwrap_or_default();
    for arg in own.into_iter().chain(swallowed_arguments(command, source)) {
        if super::context::names_a_descriptor(arg, source) {
            continue;
        }
        let value = word_value(arg, source);
        if in_flags {
            if let Some(flags) = value.as_literal().filter(|t| is_echo_flag(t, dialect)) {
                if let Some(last) = flags.chars().rev().find(|c| matches!(c, 'e' | 'E')) {
                    escapes = last == 'e';
                }
                continue;
            }
            in_flags = false;
        }
        // `echo SUCC\⏎ESS`: one word to bash, two to tree-sitter-bash.
        let joined =
            previous_end.is_some_and(|end| super::context::glued(source, end, arg.start_byte()));
        previous_end = Some(arg.end_byte());
        if !first && !joined {
            printed.push_literal(" ");
        }
        first = false;
        if escapes {
            for segment in value.segments {
                match segment {
                    Segment::Literal(text) => printed.push_literal(&echo_escapes(&text, dialect)),
                    Segment::Dynamic(source) => printed.push_dynamic(source),
                }
            }
        } else {
            printed.append(value);
        }
    }
    printed
}

fn is_echo_flag(text: &str, dialect: Dialect) -> bool {
    let allowed: &[char] = match dialect {
        Dialect::Bash | Dialect::BashXpgEcho => &['n', 'e', 'E'],
        Dialect::Posix => &['n'],
    };
    text.len() > 1 && text.starts_with('-') && text[1..].chars().all(|c| allowed.contains(&c))
}

/// Which reader of backslash escapes: an echo of the script's dialect, or printf's format.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escapes {
    Echo(Dialect),
    PrintfFormat,
}

/// What `printf FORMAT ARGS...` prints when that is known before run time, as one line (its final
/// newline taken off): a literal FORMAT whose conversions (`%s`, `%b`, `%d`, …) take the
/// arguments in order. None when the format is computed, when arguments are left over (printf
/// would reuse the format), when it prints several lines, or for `printf -v VAR`, which prints
/// nothing.
pub(crate) fn printf_output(command: Node<'_>, source: &[u8], dialect: Dialect) -> Option<Printed> {
    let invocation = super::context::invocation(command, source)?;
    let mut arguments = invocation.arguments(command, source).into_iter().peekable();
    let first = word_value(*arguments.peek()?, source).as_literal();
    match first.as_deref() {
        Some("--") => {
            arguments.next();
        }
        Some(flag) if flag.starts_with('-') && flag.len() > 1 => return None,
        _ => {}
    }
    let format = word_value(arguments.next()?, source).as_literal()?;
    let mut values = arguments.map(|a| word_value(a, source)).peekable();
    let mut printed = Printed::default();
    // printf reuses its format while values are left (`printf 'Created: %s\n' a b`), as long
    // as the format takes one.
    loop {
        let conversions = printf_round(&format, &mut values, &mut printed, dialect)?;
        if conversions == 0 || values.peek().is_none() {
            break;
        }
    }
    if let Some(Segment::Literal(last)) = printed.segments.last_mut()
        && last.ends_with('\n')
    {
        last.pop();
        if last.is_empty() {
            printed.segments.pop();
        }
    }
    Some(printed)
}

/// One pass of a printf `format` over `values` onto `printed`: how many conversions it made;
/// None for a conversion it cannot read.
fn printf_round(
    format: &str,
    values: &mut impl Iterator<Item = Printed>,
    printed: &mut Printed,
    dialect: Dialect,
) -> Option<usize> {
    let mut conversions = 0;
    let mut chars = format.chars().peekable();
    let mut text = String::new();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            text.push('%');
            continue;
        }
        let mut spec = String::new();
        // `*` takes its number from the next argument (`%.*s 7 SUCCESSXX`).
        let mut computed = false;
        while let Some(&f) = chars.peek().filter(|f| "-+ #0123456789.*".contains(**f)) {
            chars.next();
            if f != '*' {
                spec.push(f);
                continue;
            }
            match values.next().and_then(|v| v.as_literal()) {
                Some(n) if n.parse::<u16>().is_ok() => spec.push_str(&n),
                _ => computed = true,
            }
        }
        let conversion = chars.next()?;
        conversions += 1;
        printed.push_literal(&escapes(&text, Escapes::PrintfFormat));
        text.clear();
        let value = values.next().unwrap_or_default();
        if computed {
            printed.push_dynamic(format!("%{spec}{conversion}"));
            continue;
        }
        match (conversion, spec.is_empty(), value.as_literal()) {
            ('s', true, _) => printed.append(value),
            ('c', true, Some(text)) => {
                printed.push_literal(&text.chars().take(1).collect::<String>())
            }
            ('b', true, _) => {
                for segment in value.segments {
                    match segment {
                        // bash's `%b` reads `\x` as its `echo -e` does; dash's reads octal only.
                        Segment::Literal(literal) => {
                            printed.push_literal(&escapes(&literal, Escapes::Echo(dialect)))
                        }
                        Segment::Dynamic(source) => printed.push_dynamic(source),
                    }
                }
            }
            ('d' | 'i', true, Some(n)) if n.parse::<i64>().is_ok() => printed.push_literal(&n),
            // `%q` of a word that needs no quoting prints it as it is.
            ('q', true, Some(text)) if shell_safe(&text) => printed.push_literal(&text),
            // `%.7s`, `%-10s` (and `%b` after its escapes, `%q` of a word that needs no
            // quoting): a literal ASCII value cut and padded as printf does.
            ('s' | 'b' | 'q', false, Some(text)) => {
                let text = match conversion {
                    'b' => escapes(&text, Escapes::Echo(dialect)),
                    _ => text,
                };
                match sized(&text, &spec)
                    .filter(|_| text.is_ascii() && (conversion != 'q' || shell_safe(&text)))
                {
                    Some(text) => printed.push_literal(&text),
                    None => printed.push_dynamic(format!("%{spec}{conversion}")),
                }
            }
            _ => printed.push_dynamic(format!("%{spec}{conversion}")),
        }
    }
    printed.push_literal(&escapes(&text, Escapes::PrintfFormat));
    Some(conversions)
}

/// Whether printf's `%q` prints `text` unchanged: it holds nothing the shell would read.
fn shell_safe(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:=@%+,-".contains(&b))
}

/// `text` as `%{spec}s` prints it, for a spec of an optional `-`, a width and a precision
/// (`-10`, `.7`, `8.3`); None for any other flag.
fn sized(text: &str, spec: &str) -> Option<String> {
    let (left, spec) = match spec.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    let (width, precision) = match spec.split_once('.') {
        Some((width, precision)) => (width, Some(precision)),
        None => (spec, None),
    };
    let number = |digits: &str| -> Option<usize> {
        match digits {
            "" => Some(0),
            _ if digits.bytes().all(|b| b.is_ascii_digit()) && digits.len() <= 4 => {
                digits.parse().ok()
            }
            _ => None,
        }
    };
    let width = number(width)?;
    let mut text = text.to_string();
    // A precision only ever cuts, so any length of digits is read (`%.100000s` prints it whole).
    let cut = |digits: &str| match number(digits) {
        Some(n) => Some(n),
        None => digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then_some(usize::MAX),
    };
    if let Some(precision) = precision {
        text.truncate(cut(precision)?.min(text.len()));
    }
    let pad = " ".repeat(width.saturating_sub(text.len()));
    Some(if left { text + &pad } else { pad + &text })
}

/// Backslash escapes as `echo -e` (bash) or dash's `echo` reads them. `\c` ends the output.
fn echo_escapes(text: &str, dialect: Dialect) -> String {
    escapes(text, Escapes::Echo(dialect))
}

/// Backslash escapes as `reader` reads them: an echo (see [`echo_escapes`]), or a printf format
/// (`\NNN` octal with or without a leading 0, bash's `\x`, `\u`, `\U`).
fn escapes(text: &str, reader: Escapes) -> String {
    let bash = reader != Escapes::Echo(Dialect::Posix);
    let format = reader == Escapes::PrintfFormat;
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&next) = chars.peek() else {
            out.push('\\');
            break;
        };
        let simple = match next {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' => Some('\\'),
            'e' => Some('\u{1b}'),
            'E' if bash => Some('\u{1b}'),
            _ => None,
        };
        if let Some(s) = simple {
            chars.next();
            out.push(s);
            continue;
        }
        match next {
            '0'..='7' if format => push_byte(&mut out, digits(&mut chars, 8, 3)),
            '\'' | '"' | '?' if format => {
                chars.next();
                out.push(next);
            }
            'c' => break,
            '0' => {
                chars.next();
                push_byte(&mut out, digits(&mut chars, 8, 3));
            }
            // dash reads `\101` as octal too; bash's echo only `\0101`.
            '1'..='7' if !bash => push_byte(&mut out, digits(&mut chars, 8, 3)),
            'x' if bash => {
                chars.next();
                if chars.peek().is_some_and(char::is_ascii_hexdigit) {
                    push_byte(&mut out, digits(&mut chars, 16, 2));
                } else {
                    out.push_str("\\x");
                }
            }
            'u' | 'U' if bash => {
                chars.next();
                let max = if next == 'u' { 4 } else { 8 };
                let mut code = 0;
                let mut any = false;
                for _ in 0..max {
                    match chars.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            code = code * 16 + d;
                            any = true;
                            chars.next();
                        }
                        None => break,
                    }
                }
                match char::from_u32(code).filter(|_| any) {
                    Some(c) => out.push(c),
                    None => {
                        out.push('\\');
                        out.push(next);
                    }
                }
            }
            _ => out.push('\\'),
        }
    }
    // Bytes from escapes that form UTF-8 together are its characters; the rest stay marked.
    crate::bytes_text::normalize(out)
}

/// A byte an escape gives (`\351`, `\xe9`): ASCII as its character, any other byte marked (see
/// `bytes_text`), as the shell prints the byte itself.
fn push_byte(out: &mut String, byte: u32) {
    crate::bytes_text::push_byte(out, byte as u8);
}

/// Up to `max` digits of `radix`, as a number (masked to a byte by the caller's shells).
fn digits(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, radix: u32, max: usize) -> u32 {
    let mut value = 0;
    for _ in 0..max {
        match chars.peek().and_then(|c| c.to_digit(radix)) {
            Some(d) => {
                value = value * radix + d;
                chars.next();
            }
            None => break,
        }
    }
    value & 0xff
}

/// The value of one shell word after quote removal, with expansions kept as run-time segments.
pub(crate) fn word_value(node: Node<'_>, source: &[u8]) -> Printed {
    let mut out = Printed::default();
    match node.kind() {
        "word" | "number" => {
            let text = node_text_marked(node, source);
            if has_unescaped_glob(&text) {
                out.push_dynamic(text);
            } else {
                out.push_literal(&unescape_unquoted(&text));
            }
        }
        "raw_string" => {
            let text = node_text_marked(node, source);
            out.push_literal(text.trim_start_matches('\'').trim_end_matches('\''));
        }
        "ansi_c_string" => {
            let text = node_text_marked(node, source);
            let inner = text
                .strip_prefix("$'")
                .and_then(|t| t.strip_suffix('\''))
                .unwrap_or(&text);
            out.push_literal(&unescape_ansi_c(inner));
        }
        "string" | "translated_string" => {
            let mut cursor = node.walk();
            let mut previous_end = node.start_byte();
            for child in node.children(&mut cursor) {
                // tree-sitter-bash leaves a line break inside the quotes out of every child
                // (`"foo⏎SUCCESS"` is two `string_content`s): the bytes between are printed too.
                if child.start_byte() > previous_end {
                    let gap = &source[previous_end..child.start_byte()];
                    out.push_literal(&String::from_utf8_lossy(gap));
                }
                previous_end = child.end_byte();
                match child.kind() {
                    "\"" | "$\"" => {}
                    "string_content" => {
                        out.push_literal(&unescape_double_quoted(&node_text_marked(child, source)))
                    }
                    "string" => out.append(word_value(child, source)),
                    _ => out.push_dynamic(node_text(child, source)),
                }
            }
        }
        "concatenation" => {
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
            for (i, child) in children.iter().enumerate() {
                // tree-sitter-bash reads an empty `$""` glued to a word as `$` and `""`: a
                // translated empty string, which prints nothing. A `$` before anything else is
                // printed as it is.
                if child.kind() == "$" && !child.is_named() {
                    if children
                        .get(i + 1)
                        .is_none_or(|next| next.kind() != "string")
                    {
                        out.push_literal("$");
                    }
                    continue;
                }
                out.append(word_value(*child, source));
            }
        }
        _ => out.push_dynamic(node_text(node, source)),
    }
    out
}

/// Whether an unquoted word holds a glob character bash may expand (`*`, `?`, `[`); a
/// backslash-escaped one (`\*`) is printed as it is.
fn has_unescaped_glob(text: &str) -> bool {
    let mut escaped = false;
    for c in text.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '*' | '?' | '[' => return true,
            _ => {}
        }
    }
    false
}

fn unescape_unquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn unescape_double_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&next)) if matches!(next, '"' | '\\' | '$' | '`') => {
                out.push(next);
                chars.next();
            }
            ('\\', Some('\n')) => {
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// `$'…'` quoting: the escapes printf's format reads (octal, `\xHH`, `\uHHHH`, `\n`, `\'`, …).
fn unescape_ansi_c(text: &str) -> String {
    escapes(text, Escapes::PrintfFormat)
}
