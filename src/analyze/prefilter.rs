//! A conservative byte-level test run before parsing: can this file hold a live legacy statement?
//! It only answers "no" when every marker (SUCCESS, Confidence:, …) sits in a heredoc body or on a
//! line with no `echo` or `printf` that does not continue a previous line. Whenever it is unsure, it says "yes"
//! and the parser decides. A marker split across quotes (`echo "SUC"'CESS'`) is looked for with
//! the quotes and backslashes taken out of the words around them, only when the plain search finds
//! nothing.

use std::sync::OnceLock;

use memchr::memmem::Finder;

use super::Vocabulary;

/// Whether a line names a printer that legacy lines are read from (`echo`, `printf`); the
/// searchers are built once.
fn names_printer(line: &[u8]) -> bool {
    static FINDERS: OnceLock<[Finder<'static>; 2]> = OnceLock::new();
    FINDERS
        .get_or_init(|| [Finder::new(b"echo"), Finder::new(b"printf")])
        .iter()
        .any(|finder| finder.find(line).is_some())
}

/// Whether `source` is worth a parse for check and migrate alike: it may hold a legacy statement,
/// or a marker anywhere, which may be printed by a command spelled in a way no byte scan reads
/// (`e"ch"o SUCCESS`, `e\cho`) or be out of reach (SKM010).
pub fn worth_parsing(source: &[u8], vocabulary: Vocabulary) -> bool {
    may_hold_legacy(source, vocabulary) || !vocabulary.marker_offsets(source).is_empty()
}

/// False only when no legacy statement can be in `source`, so the parse can be skipped. Markers
/// and `<<` are found in the whole file first; only the lines holding one get a closer look.
pub fn may_hold_legacy(source: &[u8], vocabulary: Vocabulary) -> bool {
    // `"SUCC"\⏎"ESS"`, `SUCC$''ESS`: once line continuations and empty quotes are taken out, the
    // text is looked at again (a yes/no: its offsets are not the file's).
    may_hold_legacy_as_written(source, vocabulary)
        || joined(source).is_some_and(|text| may_hold_legacy_as_written(&text, vocabulary))
}

/// `source` without line continuations (`\⏎`), empty quotes (`''`, `""`, `$''`, `$""`) and the
/// `$` that opens a quote (`$'…'`, `$"…"`), if it holds any: each spelling and what it becomes.
fn joined(source: &[u8]) -> Option<Vec<u8>> {
    const SPELLINGS: [(&[u8], &[u8]); 7] = [
        (b"\\\n", b""),
        (b"$''", b""),
        (b"$\"\"", b""),
        (b"''", b""),
        (b"\"\"", b""),
        (b"$'", b"'"),
        (b"$\"", b"\""),
    ];
    if !SPELLINGS
        .iter()
        .any(|(from, _)| memchr::memmem::find(source, from).is_some())
    {
        return None;
    }
    let mut out = Vec::with_capacity(source.len());
    let mut i = 0;
    while i < source.len() {
        match SPELLINGS
            .iter()
            .find(|(from, _)| source[i..].starts_with(from))
        {
            Some((from, to)) => {
                out.extend_from_slice(to);
                i += from.len();
            }
            None => {
                out.push(source[i]);
                i += 1;
            }
        }
    }
    Some(out)
}

fn may_hold_legacy_as_written(source: &[u8], vocabulary: Vocabulary) -> bool {
    let hits = vocabulary.marker_offsets(source);
    // Without a plain marker, a marker can still be split across quotes on some line.
    let split = hits.is_empty()
        && (split_marker(source, vocabulary)
            || escaped_marker(source, vocabulary)
            || printf_marker(source, vocabulary));
    if hits.is_empty() && !split {
        return false;
    }
    // A marker may be handed to a helper defined in a file the script sources.
    if !hits.is_empty() && may_source(source) {
        return true;
    }
    let operators: Vec<usize> = memchr::memmem::find_iter(source, b"<<").collect();
    // Found once, at the first marker on a line that names no printer.
    let mut functions: Option<std::collections::HashSet<&[u8]>> = None;
    let (mut hit, mut operator) = (0, 0);
    let mut previous_continues = false;
    let mut start = 0;
    while start < source.len() {
        let end = memchr::memchr(b'\n', &source[start..]).map_or(source.len(), |p| start + p);
        let line = &source[start..end];
        while hits.get(hit).is_some_and(|&h| h < start) {
            hit += 1;
        }
        while operators.get(operator).is_some_and(|&o| o < start) {
            operator += 1;
        }
        let has_marker = hits.get(hit).is_some_and(|&h| h < end)
            || (split
                && (split_marker(line, vocabulary)
                    || escaped_marker(line, vocabulary)
                    || printf_marker(line, vocabulary)));
        // An odd number of quotes: the line may end a string an `echo` opened on an earlier line
        // (`echo "note⏎Created: x"`).
        let odd_quotes = |q: u8| memchr::memchr_iter(q, line).count() % 2 == 1;
        if has_marker
            && (previous_continues || names_printer(line) || odd_quotes(b'"') || odd_quotes(b'\''))
        {
            return true;
        }
        // `print_success "Created: $f"`: a function of the file may print what it is given.
        if has_marker
            && words(line).any(|w| {
                functions
                    .get_or_insert_with(|| defined_functions(source))
                    .contains(w)
            })
        {
            return true;
        }
        previous_continues = line.trim_ascii_end().ends_with(b"\\");
        start = end + 1;
        let opens = operators.get(operator).is_some_and(|&o| o < end);
        if let Some(doc) = opens.then(|| heredoc_start(line)).flatten() {
            // Only trust a heredoc whose closing line exists; otherwise scan on as plain code.
            if let Some(after) = doc.end_after(source, start) {
                start = after;
            }
        }
    }
    false
}

/// Whether some line may start a `source`/`.` command: only then is a script parsed for the
/// files it sources, since most source nothing.
pub(crate) fn may_source(bytes: &[u8]) -> bool {
    starts_a_statement(bytes, &[b"source", b"."])
}

/// Whether a name the script calls may stand for a printer defined out of the analysis's sight:
/// code loaded from elsewhere (`source`, `.`, `eval`) or an alias (`alias say=echo`).
pub(crate) fn may_hand_on(bytes: &[u8]) -> bool {
    starts_a_statement(bytes, &[b"source", b".", b"eval", b"alias"])
}

/// Whether some statement starts with one of `words` (followed by a blank): at a line's start or
/// after `;`, `&`, `|`, `{` or `(`, and after `then`, `do`, `else`, `if`, `while`, `until` or `!`.
fn starts_a_statement(bytes: &[u8], words: &[&[u8]]) -> bool {
    let blank = |b: &u8| matches!(b, b' ' | b'\t');
    let present = words.iter().any(|w| {
        memchr::memmem::find_iter(bytes, w).any(|at| bytes.get(at + w.len()).is_some_and(blank))
    });
    present
        && bytes.split(|&b| b == b'\n').any(|line| {
            line.split(|&b| matches!(b, b';' | b'&' | b'|' | b'{' | b'('))
                .any(|statement| {
                    let mut rest = statement.trim_ascii_start();
                    for keyword in [
                        &b"then "[..],
                        b"do ",
                        b"else ",
                        b"if ",
                        b"while ",
                        b"until ",
                        b"! ",
                    ] {
                        if let Some(after) = rest.strip_prefix(keyword) {
                            rest = after.trim_ascii_start();
                        }
                    }
                    words.iter().any(|w| {
                        rest.strip_prefix(*w)
                            .and_then(|r| r.first())
                            .is_some_and(blank)
                    })
                })
        })
}

/// The words a line could name a command with.
fn words(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.'))
        .filter(|w| !w.is_empty())
}

/// The names `source` may define functions by: the word before each `()` (blanks allowed inside
/// and before), and the word after each `function`.
fn defined_functions(source: &[u8]) -> std::collections::HashSet<&[u8]> {
    let is_name = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.');
    let mut names = std::collections::HashSet::new();
    for open in memchr::memchr_iter(b'(', source) {
        let closes = source[open + 1..]
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t'))
            .is_some_and(|&b| b == b')');
        if !closes {
            continue;
        }
        let end = open
            - source[..open]
                .iter()
                .rev()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count();
        let start = end
            - source[..end]
                .iter()
                .rev()
                .take_while(|b| is_name(b))
                .count();
        if start < end {
            names.insert(&source[start..end]);
        }
    }
    for at in memchr::memmem::find_iter(source, b"function") {
        let rest = &source[at + b"function".len()..];
        let blanks = rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let name = rest[blanks..].iter().take_while(|b| is_name(b)).count();
        if blanks > 0 && name > 0 {
            names.insert(&rest[blanks..blanks + name]);
        }
    }
    names
}

/// Whether `source` holds a marker once quotes and backslashes are taken out (`"SUC"'CESS'` reads
/// `SUCCESS`) that it does not hold as it is. Such a marker has a run of those bytes between two
/// of its own bytes, so only the word (marker bytes and quotes) around each such run is searched,
/// without copying the file.
fn split_marker(source: &[u8], vocabulary: Vocabulary) -> bool {
    let mut word = Vec::new();
    let mut searched_to = 0;
    for quote in memchr::memchr3_iter(b'"', b'\'', b'\\', source) {
        if quote < searched_to || quote == 0 || !is_marker_byte(source[quote - 1]) {
            continue;
        }
        let after = quote + source[quote..].iter().take_while(|&&b| is_quote(b)).count();
        if !source.get(after).is_some_and(|&b| is_marker_byte(b)) {
            continue;
        }
        let in_word = |b: &&u8| is_marker_byte(**b) || is_quote(**b);
        let start = quote - source[..quote].iter().rev().take_while(in_word).count();
        let end = after + source[after..].iter().take_while(in_word).count();
        searched_to = end;
        word.clear();
        word.extend(source[start..end].iter().filter(|&&b| !is_quote(b)));
        if !vocabulary.marker_offsets(&word).is_empty() {
            return true;
        }
    }
    false
}

/// Whether a `printf` in `source` may print a marker its text does not hold: its format's
/// conversions filled with the words after it, quotes taken out (`printf 'SUCC%s\n' ESS`,
/// `printf '%s: %s\n' Created x`, `printf '%.7s' SUCCESSXX`, `printf 'SUCC%cSS' E`). A rough
/// reading, to decide whether to parse: only lines holding both `printf` and `%` are read.
fn printf_marker(source: &[u8], vocabulary: Vocabulary) -> bool {
    if memchr::memchr(b'%', source).is_none() {
        return false;
    }
    // Each byte is read once at most, and PRINTF_READ bytes after a `printf` at most, so a long
    // line full of `printf` costs linear time.
    let mut read_to = 0;
    memchr::memmem::find_iter(source, b"printf").any(|at| {
        if at < read_to {
            return false;
        }
        let end = memchr::memchr(b'\n', &source[at..])
            .map_or(source.len(), |p| at + p)
            .min(at + PRINTF_READ);
        let start = at + b"printf".len();
        let (words, read) = shell_words(&source[start..end]);
        read_to = start + read;
        let mut words = words.into_iter();
        let format = match words.next() {
            Some(word) if word == b"--" => words.next(),
            word => word,
        };
        let arguments: Vec<Vec<u8>> = words.collect();
        format.is_some_and(|format| {
            memchr::memchr(b'%', &format).is_some()
                && !vocabulary
                    .marker_offsets(&decode_escapes(&filled(&format, &arguments)))
                    .is_empty()
        })
    })
}

/// How much of a line after `printf` is read, and how much of its output is made.
const PRINTF_READ: usize = 4096;

/// The words of `line` up to the end of its first command, quotes taken out (a rough reading:
/// expansions are kept as text), and how many bytes that was.
fn shell_words(line: &[u8]) -> (Vec<Vec<u8>>, usize) {
    let (mut words, mut word, mut quote) = (Vec::new(), None::<Vec<u8>>, None);
    let mut bytes = line.iter().copied();
    while let Some(b) = bytes.next() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => word.get_or_insert_with(Vec::new).push(b),
            (None, b'\'' | b'"') => {
                quote = Some(b);
                word.get_or_insert_with(Vec::new);
            }
            (None, b'\\') => word.get_or_insert_with(Vec::new).extend(bytes.next()),
            (None, b' ' | b'\t') => words.extend(word.take()),
            (None, b';' | b'|' | b'&' | b'<' | b'>' | b')' | b'`') => break,
            (None, _) => word.get_or_insert_with(Vec::new).push(b),
        }
    }
    words.extend(word);
    (words, line.len() - bytes.len())
}

/// What printf makes of `format` and `arguments`, roughly: `%s`, `%b` and the like take the next
/// argument whole (cut to a precision), `%c` its first byte; the format is reused while
/// arguments are left.
fn filled(format: &[u8], arguments: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut next = arguments.iter();
    loop {
        let mut conversions = 0;
        let mut i = 0;
        while i < format.len() {
            if format[i] != b'%' {
                out.push(format[i]);
                i += 1;
                continue;
            }
            let spec = format[i + 1..]
                .iter()
                .take_while(|b| b"-+ #0123456789.*".contains(b))
                .count();
            let (flags, conversion) = (&format[i + 1..i + 1 + spec], format.get(i + 1 + spec));
            i += spec + 2;
            if conversion == Some(&b'%') {
                out.push(b'%');
                continue;
            }
            conversions += 1;
            // A `*` takes its number from the next argument.
            let mut flags = flags.to_vec();
            while let Some(star) = flags.iter().position(|&b| b == b'*') {
                let number = next.next().map_or(&[][..], Vec::as_slice);
                flags.splice(star..=star, number.iter().copied());
            }
            let argument = next.next().map_or(&[][..], Vec::as_slice);
            let precision = flags
                .iter()
                .position(|&b| b == b'.')
                .and_then(|dot| std::str::from_utf8(&flags[dot + 1..]).ok()?.parse().ok());
            match conversion {
                Some(b'c') => out.extend(argument.first()),
                _ => out.extend(&argument[..precision.unwrap_or(usize::MAX).min(argument.len())]),
            }
        }
        if conversions == 0 || next.len() == 0 || out.len() > PRINTF_READ {
            return out;
        }
    }
}

/// Whether `source` spells a marker with backslash escapes that `echo -e`, dash's echo or `$'…'`
/// decode (`SUCC\x45SS`, `\123UCCESS`, `\u0053UCCESS`). Only the words around a backslash
/// followed by `x`, `u`, `U` or an octal digit are decoded and searched.
fn escaped_marker(source: &[u8], vocabulary: Vocabulary) -> bool {
    let in_word = |b: &u8| b.is_ascii_alphanumeric() || *b == b':' || is_quote(*b);
    let mut searched_to = 0;
    for slash in memchr::memchr_iter(b'\\', source) {
        let escapes = source
            .get(slash + 1)
            .is_some_and(|&b| matches!(b, b'x' | b'u' | b'U' | b'0'..=b'7'));
        if slash < searched_to || !escapes {
            continue;
        }
        let start = slash
            - source[..slash]
                .iter()
                .rev()
                .take_while(|b| in_word(b))
                .count();
        let end = slash + source[slash..].iter().take_while(|b| in_word(b)).count();
        searched_to = end;
        if !vocabulary
            .marker_offsets(&decode_escapes(&source[start..end]))
            .is_empty()
        {
            return true;
        }
    }
    false
}

/// Quotes taken out and `\xHH`, `\0NNN`, `\NNN`, `\uHHHH`, `\UHHHHHHHH` decoded; `\n`, `\t` and
/// `\r` (which end a word: `printf '\x53UCCESS\n'`) read as a line break; any other backslash
/// dropped.
fn decode_escapes(word: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(word.len());
    let mut i = 0;
    while i < word.len() {
        let b = word[i];
        i += 1;
        if b != b'\\' {
            if !is_quote(b) {
                out.push(b);
            }
            continue;
        }
        let (radix, max) = match word.get(i) {
            Some(b'x') => (16, 2),
            Some(b'u') => (16, 4),
            Some(b'U') => (16, 8),
            Some(b'0') => (8, 4),
            Some(b'1'..=b'7') => (8, 3),
            Some(b'n' | b't' | b'r') => {
                i += 1;
                out.push(b'\n');
                continue;
            }
            // `\c`: echo prints nothing after it.
            Some(b'c') => break,
            _ => continue,
        };
        if radix == 16 {
            i += 1;
        }
        let digits = word[i..]
            .iter()
            .take(max)
            .take_while(|d| char::from(**d).is_digit(radix))
            .count();
        let value = std::str::from_utf8(&word[i..i + digits])
            .ok()
            .and_then(|d| u32::from_str_radix(d, radix).ok());
        i += digits;
        if let Some(c) = value.and_then(char::from_u32) {
            let mut buffer = [0; 4];
            out.extend(c.encode_utf8(&mut buffer).as_bytes());
        }
    }
    out
}

fn is_quote(byte: u8) -> bool {
    matches!(byte, b'"' | b'\'' | b'\\')
}

/// The bytes markers are made of (letters and the colon of `Created:`), in any case.
pub(crate) fn is_marker_byte(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b':'
}

struct Heredoc {
    delimiter: Vec<u8>,
    strip_tabs: bool,
}

impl Heredoc {
    /// Where the line after this heredoc's closing line starts, for a body starting at `from`.
    fn end_after(&self, source: &[u8], from: usize) -> Option<usize> {
        let mut start = from;
        while start < source.len() {
            let end = memchr::memchr(b'\n', &source[start..]).map_or(source.len(), |p| start + p);
            if self.ends_at(&source[start..end]) {
                return Some(end + 1);
            }
            start = end + 1;
        }
        None
    }

    fn ends_at(&self, line: &[u8]) -> bool {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = if self.strip_tabs {
            let tabs = line.iter().take_while(|&&b| b == b'\t').count();
            &line[tabs..]
        } else {
            line
        };
        line == self.delimiter.as_slice()
    }
}

/// The heredoc a line opens, found outside quotes and comments. A line that opens more than one,
/// or anything unusual, yields None (scan on as code: the safe direction).
fn heredoc_start(line: &[u8]) -> Option<Heredoc> {
    let mut quote: Option<u8> = None;
    let mut found = None;
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        match quote {
            Some(q) => {
                if b == b'\\' && q == b'"' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'\\' => i += 1,
                b'\'' | b'"' => quote = Some(b),
                b'#' if i == 0 || line[i - 1].is_ascii_whitespace() => break,
                b'<' if line[i..].starts_with(b"<<") && !line[i..].starts_with(b"<<<") => {
                    if found.is_some() {
                        return None;
                    }
                    let (doc, used) = parse_delimiter(&line[i + 2..])?;
                    found = Some(doc);
                    i += 2 + used;
                    continue;
                }
                _ => {}
            },
        }
        i += 1;
    }
    found
}

fn parse_delimiter(rest: &[u8]) -> Option<(Heredoc, usize)> {
    let mut i = 0;
    let strip_tabs = rest.first() == Some(&b'-');
    if strip_tabs {
        i += 1;
    }
    while rest.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
        i += 1;
    }
    let mut delimiter = Vec::new();
    while let Some(&b) = rest.get(i) {
        match b {
            b'\'' | b'"' => {
                let close = rest[i + 1..].iter().position(|&c| c == b)?;
                delimiter.extend_from_slice(&rest[i + 1..i + 1 + close]);
                i += close + 2;
            }
            b'\\' => {
                delimiter.push(*rest.get(i + 1)?);
                i += 2;
            }
            b if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.' => {
                delimiter.push(b);
                i += 1;
            }
            _ => break,
        }
    }
    let plausible = delimiter
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
    plausible.then_some((
        Heredoc {
            delimiter,
            strip_tabs,
        },
        i,
    ))
}

#[cfg(test)]
mod tests {
    use super::{is_quote, may_hold_legacy, split_marker};
    use crate::analyze::Vocabulary;

    #[test]
    fn files_without_markers_need_no_parse() {
        assert!(!may_hold_legacy(
            b"#!/bin/bash\necho hello\n",
            Vocabulary::Exact
        ));
    }

    #[test]
    fn markers_inside_a_heredoc_need_no_parse() {
        let src = b"cat <<'EOF'\necho \"SUCCESS\"\nConfidence: 0.1\nEOF\necho done\n";
        assert!(!may_hold_legacy(src, Vocabulary::Exact));
        let tabs = b"cat <<-EOF\n\techo SUCCESS\n\tEOF\n";
        assert!(!may_hold_legacy(tabs, Vocabulary::Exact));
    }

    #[test]
    fn markers_on_echo_lines_need_a_parse() {
        assert!(may_hold_legacy(b"echo \"SUCCESS\"\n", Vocabulary::Exact));
        assert!(may_hold_legacy(b"printf 'SUCCESS\\n'\n", Vocabulary::Exact));
        assert!(may_hold_legacy(
            b"cat <<EOF\nx\nEOF\necho \"Created: $f\"\n",
            Vocabulary::Exact
        ));
    }

    #[test]
    fn a_continued_line_needs_a_parse() {
        assert!(may_hold_legacy(
            b"echo \\\n  \"SUCCESS\"\n",
            Vocabulary::Exact
        ));
    }

    #[test]
    fn an_unclosed_or_fake_heredoc_is_not_trusted() {
        let sources: [&[u8]; 4] = [
            b"x=$((1<<EOF))\necho SUCCESS\n",
            b"# cat <<EOF\necho SUCCESS\nEOF\n",
            b"s='<<EOF'\necho SUCCESS\nEOF\n",
            b"cat <<EOF\necho SUCCESS\n",
        ];
        for source in sources {
            assert!(
                may_hold_legacy(source, Vocabulary::Exact),
                "{}",
                String::from_utf8_lossy(source)
            );
        }
    }

    #[test]
    fn a_marker_on_a_line_without_echo_needs_no_parse() {
        assert!(!may_hold_legacy(
            b"grep -q SUCCESS log\n",
            Vocabulary::Exact
        ));
    }

    #[test]
    fn a_marker_split_across_quotes_needs_a_parse() {
        let cases: [(&[u8], Vocabulary, bool); 8] = [
            (b"echo \"SUC\"'CESS'\n", Vocabulary::Exact, true),
            (b"echo Created\\: x\n", Vocabulary::Exact, true),
            (b"echo S\"U\"C'C'E\\S\"S\"\n", Vocabulary::Exact, true),
            (b"echo \"Conf\"idence: 0.5\n", Vocabulary::Exact, true),
            (b"echo \"su\"CCESS\n", Vocabulary::Original, true),
            (b"echo \"it's\" 'done'\n", Vocabulary::Exact, false),
            // A split word without a marker before the one with it.
            (b"echo it's SUC\"CESS\"\n", Vocabulary::Exact, true),
            (
                b"cat <<'X'\necho \"SUC\"'CESS'\nX\n",
                Vocabulary::Exact,
                false,
            ),
        ];
        for (source, vocabulary, expected) in cases {
            assert_eq!(
                may_hold_legacy(source, vocabulary),
                expected,
                "{}",
                String::from_utf8_lossy(source)
            );
        }
    }

    #[test]
    fn a_marker_on_a_line_that_ends_a_quoted_string_needs_a_parse() {
        assert!(may_hold_legacy(
            b"echo \"note\nCreated: x\"\n",
            Vocabulary::Exact
        ));
        assert!(may_hold_legacy(b"echo 'a\nSUCCESS'\n", Vocabulary::Exact));
        assert!(!may_hold_legacy(
            b"x=1\ngrep \"SUCCESS\" log\n",
            Vocabulary::Exact
        ));
    }

    #[test]
    fn a_printf_building_a_marker_from_its_arguments_needs_a_parse() {
        let cases: [(&[u8], bool); 11] = [
            (b"printf 'SUCC%cSS\\n' E\n", true),
            (b"printf 'SUCC%s\\n' ESS\n", true),
            (b"printf '%s: %s\\n' Created out.txt\n", true),
            (b"printf -- \"%s%s\" SUCC ESS\n", true),
            (b"printf '%.7s\\n' SUCCESSXX\n", true),
            // The format is used again while arguments are left.
            (b"printf '%s' SUCC ESS; echo\n", true),
            (b"printf x; printf 'SUCC%s' ESS\n", true),
            (b"printf '%.*s%s\\n' 4 SUCCxx ESS\n", true),
            (b"echo 'SUCC%cSS' E\n", false),
            (b"printf '%s\\n' SUCC ESS\n", false),
            (b"printf '%-10s %s\\n' \"$name\" \"$value\"\n", false),
        ];
        for (source, holds) in cases {
            assert_eq!(
                may_hold_legacy(source, Vocabulary::Exact),
                holds,
                "{}",
                String::from_utf8_lossy(source)
            );
        }
    }

    #[test]
    fn the_original_vocabulary_sees_markers_in_any_case() {
        let src = b"echo \"\xe2\x9c\x85 created: out.md\"\n";
        assert!(!may_hold_legacy(src, Vocabulary::Exact));
        assert!(may_hold_legacy(src, Vocabulary::Original));
    }

    #[test]
    fn markers_spelled_with_escapes_need_a_parse() {
        for src in [
            b"echo -e \"SUCC\\x45SS\"\n".as_slice(),
            b"echo \"\\123UCCESS\"\n",
            b"echo -e 'Cr\\u0065ated: x'\n",
            b"echo $'SUCC\\105SS'\n",
            b"echo -e \"SUCC\\x45SS\\c and more\"\n",
            b"echo \"SUCC\"$'E'\"SS\"\n",
            b"echo \"SUCC\"\\\n\"ESS\"\n",
        ] {
            assert!(
                may_hold_legacy(src, Vocabulary::Exact),
                "{}",
                String::from_utf8_lossy(src)
            );
        }
        // Colour escapes alone are no marker: such files still skip the parse.
        assert!(!may_hold_legacy(
            b"echo -e \"\\033[32mdone\\033[0m\"\n",
            Vocabulary::Exact
        ));
    }

    /// The search the split-marker test stands for: the whole text without quotes.
    fn dequoted_has_marker(source: &[u8], vocabulary: Vocabulary) -> bool {
        let bytes: Vec<u8> = source.iter().copied().filter(|&b| !is_quote(b)).collect();
        !vocabulary.marker_offsets(&bytes).is_empty()
    }

    proptest::proptest! {
        #[test]
        fn the_split_search_finds_what_removing_every_quote_finds(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "S", "U", "C", "E", "SUC", "CESS", "Created", "crea", "ted", ":", "\"", "'",
                    "\\", " ", "x", "\n", "Conf", "idence", "9", "COMPLE", "TE",
                ]),
                0..24,
            )
        ) {
            let source = parts.concat();
            for vocabulary in [Vocabulary::Exact, Vocabulary::Original] {
                if vocabulary.marker_offsets(source.as_bytes()).is_empty() {
                    proptest::prop_assert_eq!(
                        split_marker(source.as_bytes(), vocabulary),
                        dequoted_has_marker(source.as_bytes(), vocabulary),
                        "{:?} {:?}", source, vocabulary
                    );
                }
            }
        }
    }
}
