//! Constructs tree-sitter-bash misreads, masked for the parse only: the parser sees a copy of the
//! script in which each is replaced by bytes of the same length that it reads the same way bash
//! does (so every offset, line and column stays the script's own); everything else is read from
//! the real bytes. Each mask is checked against the tree in the tests below.
//!
//! - `[ "$a" \< "$b" ]`, `\>`: an escaped comparison operator makes the whole test (and often
//!   the rest of the file) an error. Masked as `==`, another binary test operator.
//! - `$((10#$x))`: a base prefix `#` is read as the start of a comment. Masked as `+`.
//! - `cmd >/dev/null <<<"$s"`: a here-string after another redirection is an error. Masked as
//!   `<  "$s"`, an input redirection (neither writes to stdout).
//! - `for i do`: a `for` without `in` (the positional parameters) is an error unless a `;` or a
//!   newline comes before `do`. The blank before `do` is masked as `;` (`for i;do`).
//! - `${line#*](}`: a parenthesis or an unpaired bracket in the pattern of a `#`, `%` or `/`
//!   expansion breaks the expansion. Brackets and parentheses there are masked as `?`, another
//!   pattern character (the analysis never looks inside a pattern).
//! - `[[ $l =~ ^([^}]*)$ ]]`: a `}` in an unquoted regex (outside a `${…}`) breaks the test.
//!   Masked as `x` (the analysis never looks inside a regex).
//! - `"${c:+ ($c)}"`, `"${A:+$A; }"`, `"${r:-_(none)_}"`: parentheses around an expansion or
//!   right after a word's character, a `)` that closes none, or a `;`, in the word of a `:+`,
//!   `:-`, `:=` or `:?` expansion break it. Masked as `?` and `,` (the whole expansion is a
//!   run-time value to the analysis).
//! - `${text:$i:1}`: an expansion as a substring's offset or length. Its `$` is masked as a blank
//!   (`${text: i:1}`, which tree-sitter-bash reads).
//! - `exec 3<>/dev/tcp/…`, `cat <> file`: the read-write redirection is an error. Masked as `< `,
//!   an input redirection (a `1<>FILE` sends stdout away either way).
//! - `f() { if …; fi }`: `}` after `fi`, `done` or `esac` and a blank, with no `;` (bash reads
//!   the keyword as ending the command). The blank is masked as `;`.
//! - `cat << 'USAGE'` … `USAGE:` … `USAGE`: a heredoc line that starts with the delimiter ends
//!   the heredoc for tree-sitter-bash (bash ends it at the line that is the delimiter alone). The
//!   first byte of such a line is masked (`_`, or `x` for a delimiter starting with `_`).
//! - `<<EOF''`, `<<E''OF`, `<<$'EOF'`: a heredoc delimiter with quotes other than one pair around
//!   it all ends, for tree-sitter-bash, only at a line spelled like the word; bash ends it at the
//!   name alone. Masked as the name quoted whole, blanks before it (`<<  'EOF'`).
//! - A carriage return that starts a line and a word (`\recho SUCCESS`): tree-sitter-bash reads
//!   it as a blank, bash as part of the word (a command named `\recho`). Masked as `x`.

use std::borrow::Cow;

/// `source`, or a copy with the misread constructs masked.
pub fn mask(source: &[u8]) -> Cow<'_, [u8]> {
    let mut masked: Option<Vec<u8>> = None;
    let mut put = |at: usize, bytes: &[u8]| {
        let copy = masked.get_or_insert_with(|| source.to_vec());
        copy[at..at + bytes.len()].copy_from_slice(bytes);
    };
    for at in memchr::memchr_iter(b'\\', source) {
        let operator = matches!(source.get(at + 1), Some(b'<' | b'>'));
        let word_alone = at > 0
            && is_blank(source[at - 1])
            && source
                .get(at + 2)
                .is_none_or(|&b| is_blank(b) || b == b'\n');
        if operator && word_alone && !escaped(source, at) {
            put(at, b"==");
        }
    }
    for at in memchr::memchr_iter(b'#', source) {
        let base = at > 0 && source[at - 1].is_ascii_digit() && digits_start_word(source, at);
        let digit_follows = source
            .get(at + 1)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'$' | b'_' | b'{'));
        if base && digit_follows {
            put(at, b"+");
        }
    }
    for at in memchr::memmem::find_iter(source, b"<<<") {
        if at > 0 && is_blank(source[at - 1]) && follows_redirect(source, at - 1) {
            put(at, b"<  ");
        }
    }
    for at in memchr::memmem::find_iter(source, b"for") {
        if let Some(blank) = for_without_in(source, at) {
            put(blank, b";");
        }
    }
    for at in memchr::memmem::find_iter(source, b"${") {
        for paren in pattern_parens(source, at) {
            put(paren, b"?");
        }
        let (parens, semicolons) = operator_word(source, at);
        for paren in parens {
            put(paren, b"?");
        }
        for semicolon in semicolons {
            put(semicolon, b",");
        }
    }
    for at in memchr::memmem::find_iter(source, b"${") {
        for offset in substring_expansions(source, at) {
            put(offset, b" ");
        }
    }
    for at in memchr::memmem::find_iter(source, b"<<") {
        if let Some((start, word)) = quoted_delimiter(source, at) {
            put(start, &word);
        }
        for line in heredoc_prefix_lines(source, at) {
            put(line, if source[line] == b'_' { b"x" } else { b"_" });
        }
    }
    for at in memchr::memmem::find_iter(source, b"<>") {
        if at == 0 || source[at - 1] != b'<' {
            put(at, b"< ");
        }
    }
    for at in memchr::memchr_iter(b'}', source) {
        if let Some(blank) = brace_after_keyword(source, at) {
            put(blank, b";");
        }
    }
    for at in memchr::memmem::find_iter(source, b"=~") {
        for brace in regex_braces(source, at) {
            put(brace, b"x");
        }
    }
    for at in memchr::memchr_iter(b'\r', source) {
        let starts_line = at == 0 || source[at - 1] == b'\n';
        let starts_word = source
            .get(at + 1)
            .is_some_and(|&b| !is_blank(b) && !matches!(b, b'\n' | b'\r'));
        if starts_line && starts_word {
            put(at, b"x");
        }
    }
    match masked {
        Some(copy) => Cow::Owned(copy),
        None => Cow::Borrowed(source),
    }
}

/// The `}` of the unquoted regex after the `=~` at `at` (up to ` ]]` on its line) that close no
/// `${`: tree-sitter-bash reads one as the end of a brace group.
fn regex_braces(source: &[u8], at: usize) -> Vec<usize> {
    let operator =
        at > 0 && is_blank(source[at - 1]) && source.get(at + 2).is_some_and(|&b| is_blank(b));
    if !operator {
        return Vec::new();
    }
    let start = at + 2;
    let line_end = memchr::memchr(b'\n', &source[start..]).map_or(source.len(), |p| start + p);
    let Some(end) = memchr::memmem::find(&source[start..line_end], b" ]]").map(|p| start + p)
    else {
        return Vec::new();
    };
    let mut braces = Vec::new();
    let (mut quote, mut expansions) = (None, 0usize);
    let mut i = start;
    while i < end {
        let b = source[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\\' => i += 1,
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'$' && source.get(i + 1) == Some(&b'{') => {
                expansions += 1;
                i += 1;
            }
            None if b == b'}' && expansions > 0 => expansions -= 1,
            None if b == b'}' => braces.push(i),
            None => {}
        }
        i += 1;
    }
    braces
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Whether the byte at `at` is itself escaped (an odd run of backslashes before it).
fn escaped(source: &[u8], at: usize) -> bool {
    source[..at]
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count()
        % 2
        == 1
}

/// Whether the digits before `#` at `at` start a word or follow an arithmetic operator (so the
/// `#` is a base prefix, `10#ff`, not a comment after a word such as `a1#`).
fn digits_start_word(source: &[u8], at: usize) -> bool {
    let digits = source[..at]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    match source[..at - digits].last() {
        None => true,
        Some(b) => !(b.is_ascii_alphabetic() || *b == b'_' || *b == b'$'),
    }
}

/// For `for NAME do` starting at `at`: the offset of the blank before `do`.
fn for_without_in(source: &[u8], at: usize) -> Option<usize> {
    let before = &source[..at];
    let trimmed =
        &before[..before.len() - before.iter().rev().take_while(|&&b| is_blank(b)).count()];
    let starts_command = match trimmed.last() {
        None => true,
        Some(b'\n' | b';' | b'&' | b'|' | b'(' | b'{') => true,
        Some(_) => [&b"then"[..], b"do", b"else"].iter().any(|w| {
            trimmed.ends_with(w)
                && trimmed[..trimmed.len() - w.len()]
                    .last()
                    .is_none_or(|&b| is_blank(b) || b == b'\n' || b == b';')
        }),
    };
    // `for` is a word of its own (not the end of `xfor`).
    if before
        .last()
        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return None;
    }
    let mut i = at + 3;
    let blanks = |from: usize| source[from..].iter().take_while(|&&b| is_blank(b)).count();
    let gap = blanks(i);
    if !starts_command || gap == 0 {
        return None;
    }
    i += gap;
    let name = source[i..]
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
        .count();
    if name == 0 || source[i].is_ascii_digit() {
        return None;
    }
    i += name;
    let gap = blanks(i);
    i += gap;
    let is_do = source[i..].starts_with(b"do")
        && source
            .get(i + 2)
            .is_none_or(|&b| is_blank(b) || matches!(b, b'\n' | b';'));
    (gap > 0 && is_do).then(|| i - 1)
}

/// Where the NAME of the `${NAME…` at `at` ends; None when it has none.
fn after_name(source: &[u8], at: usize) -> Option<usize> {
    let name = source[at + 2..]
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
        .count();
    (name > 0).then_some(at + 2 + name)
}

/// For `${NAME#…}`, `%` or `/` starting at `at`: the offsets of the brackets and parentheses in
/// its pattern, when the expansion closes on the same line with no other expansion or quote
/// inside.
fn pattern_parens(source: &[u8], at: usize) -> Vec<usize> {
    let Some(start) = after_name(source, at) else {
        return Vec::new();
    };
    if !matches!(source.get(start), Some(b'#' | b'%' | b'/')) {
        return Vec::new();
    }
    let mut parens = Vec::new();
    for (i, &b) in source[start..].iter().enumerate() {
        match b {
            b'}' => return parens,
            b'(' | b')' | b'[' | b']' if !escaped(source, start + i) => parens.push(start + i),
            b'\n' | b'$' | b'"' | b'\'' | b'`' | b'{' => return Vec::new(),
            _ => {}
        }
    }
    Vec::new()
}

/// For `${NAME:+…}` (`-`, `=`, `?`, with or without the colon) starting at `at`: the offsets of
/// the parentheses in its word when they hold an expansion (`${c:+ ($c)}`), and of its `;`s,
/// when the expansion closes on the same line and runs no command inside.
fn operator_word(source: &[u8], at: usize) -> (Vec<usize>, Vec<usize>) {
    let none = (Vec::new(), Vec::new());
    let Some(mut start) = after_name(source, at) else {
        return none;
    };
    if source.get(start) == Some(&b':') {
        start += 1;
    }
    if !matches!(source.get(start), Some(b'+' | b'-' | b'=' | b'?')) {
        return none;
    }
    let (mut parens, mut semicolons) = (Vec::new(), Vec::new());
    let (mut open, mut depth, mut expansion_inside) = (0usize, 0usize, false);
    // A `(` right after a word's character (`_(none)_`) or a `)` that closes none breaks it too.
    let mut glued = false;
    for (i, &b) in source[start + 1..].iter().enumerate() {
        let at = start + 1 + i;
        match b {
            b'\n' | b'`' => return none,
            b'$' if source.get(at + 1) == Some(&b'(') => return none,
            b';' if depth == 0 => semicolons.push(at),
            b'$' => {
                expansion_inside |= open > 0;
                if source.get(at + 1) == Some(&b'{') {
                    depth += 1;
                }
            }
            b'}' if depth == 0 => break,
            b'}' => depth -= 1,
            b'(' | b')' if depth == 0 && !escaped(source, at) => {
                if b == b'(' {
                    glued |=
                        at > start + 1 && !matches!(source[at - 1], b' ' | b'\t' | b'(' | b')');
                    open += 1;
                } else {
                    glued |= open == 0;
                    open = open.saturating_sub(1);
                }
                parens.push(at);
            }
            _ => {}
        }
    }
    if !(expansion_inside || glued) {
        parens.clear();
    }
    (parens, semicolons)
}

/// For `${NAME:…}` starting at `at`, a substring (`${text:$i:1}`): the offsets of each `$` that
/// directly follows one of its colons, when it closes on the same line.
fn substring_expansions(source: &[u8], at: usize) -> Vec<usize> {
    let Some(colon) = after_name(source, at) else {
        return Vec::new();
    };
    if source.get(colon) != Some(&b':') || source.get(colon + 1) != Some(&b'$') {
        return Vec::new();
    }
    let mut offsets = Vec::new();
    for (i, &b) in source[colon..].iter().enumerate() {
        let here = colon + i;
        match b {
            b'}' => return offsets,
            b'\n' | b'"' | b'\'' | b'`' | b'(' | b'{' => return Vec::new(),
            b'$' if source[here - 1] == b':' => offsets.push(here),
            _ => {}
        }
    }
    Vec::new()
}

/// For a `<<` at `at` that starts a heredoc (not `<<<`, nor in a comment): where its delimiter
/// word starts (after `-` and blanks), and whether it is a `<<-` (tabs stripped).
fn heredoc_word(source: &[u8], at: usize) -> Option<(usize, bool)> {
    if source.get(at + 2) == Some(&b'<') || (at > 0 && source[at - 1] == b'<') {
        return None;
    }
    let line_start = source[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    if source[line_start..at].contains(&b'#') {
        return None;
    }
    let mut pos = at + 2;
    let tabs = source.get(pos) == Some(&b'-');
    if tabs {
        pos += 1;
    }
    while source.get(pos).is_some_and(|&b| is_blank(b)) {
        pos += 1;
    }
    Some((pos, tabs))
}

/// For a heredoc whose `<<` is at `at` and whose delimiter is a name (`EOF`, `'USAGE'`): the
/// start of each body line that begins with the delimiter without being it, when a line that is
/// the delimiter ends the body. Nothing for a `<<<`, a `<<` in a comment or an arithmetic shift.
fn heredoc_prefix_lines(source: &[u8], at: usize) -> Vec<usize> {
    let Some((mut pos, tabs)) = heredoc_word(source, at) else {
        return Vec::new();
    };
    if matches!(source.get(pos), Some(b'\'' | b'"' | b'\\')) {
        pos += 1;
    }
    let name = source[pos..]
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
        .count();
    let delimiter = &source[pos..pos + name];
    if name < 2 || delimiter[0].is_ascii_digit() {
        return Vec::new();
    }
    let Some(newline) = memchr::memchr(b'\n', &source[pos..]) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    let mut start = pos + newline + 1;
    while start < source.len() {
        let end = memchr::memchr(b'\n', &source[start..]).map_or(source.len(), |i| start + i);
        let mut first = start;
        while tabs && first < end && source[first] == b'\t' {
            first += 1;
        }
        let line = &source[first..end];
        if line == delimiter {
            return lines;
        }
        if line.starts_with(delimiter) {
            lines.push(first);
        }
        start = end + 1;
    }
    Vec::new()
}

/// For a heredoc whose `<<` is at `at` and whose delimiter word has quotes other than one pair
/// around it all (`EOF''`, `E''OF`, `EOF""`, `$'EOF'`, `$"EOF"`): where the word starts, and the
/// same name quoted whole, blanks before it to keep the length (`  'EOF'`). bash ends the body at
/// the name alone; tree-sitter-bash at a line spelled like the word.
fn quoted_delimiter(source: &[u8], at: usize) -> Option<(usize, Vec<u8>)> {
    let (start, _) = heredoc_word(source, at)?;
    let len = source[start..]
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'\'' | b'"' | b'$'))
        .count();
    let word = &source[start..start + len];
    let name: Vec<u8> = word
        .iter()
        .copied()
        .filter(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .collect();
    let whole = word.len() == name.len() + 2
        && matches!(word[0], b'\'' | b'"')
        && word[word.len() - 1] == word[0];
    let plain = word.len() == name.len();
    // A `$` counts only right before a quote (`$'EOF'`); anywhere else the word is no name.
    let dollars_ok = word
        .iter()
        .enumerate()
        .all(|(i, &b)| b != b'$' || matches!(word.get(i + 1), Some(b'\'' | b'"')));
    // Quotes in pairs only: an open one runs on past the word.
    let paired = [b'\'', b'"']
        .iter()
        .all(|q| word.iter().filter(|&b| b == q).count() % 2 == 0);
    if name.is_empty() || plain || whole || !dollars_ok || !paired {
        return None;
    }
    let mut masked = vec![b' '; word.len().checked_sub(name.len() + 2)?];
    masked.push(b'\'');
    masked.extend(&name);
    masked.push(b'\'');
    Some((start, masked))
}

/// Where bash ends an unquoted heredoc at a delimiter it joins from backslash-newlines (`EO\⏎F`),
/// which tree-sitter-bash reads past: no mask keeps every line in place there, so each is a
/// misread, and a file holding one and a marker is an error, never a pass.
pub(crate) fn joined_heredoc_ends(source: &[u8]) -> Vec<usize> {
    if memchr::memmem::find(source, b"\\\n").is_none() {
        return Vec::new();
    }
    memchr::memmem::find_iter(source, b"<<")
        .filter_map(|at| joined_delimiter(source, at).map(|(start, _)| start))
        .collect()
}

/// The delimiter of an unquoted heredoc whose `<<` (not `<<-`) is at `at`: a plain name.
fn heredoc_name(source: &[u8], at: usize) -> Option<Vec<u8>> {
    let (pos, _) = heredoc_word(source, at).filter(|&(_, tabs)| !tabs)?;
    let len = source[pos..]
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
        .count();
    let after = source.get(pos + len).copied();
    let plain = len > 0
        && after.is_none_or(|b| {
            matches!(
                b,
                b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'>' | b'<' | b')'
            )
        });
    plain.then(|| source[pos..pos + len].to_vec())
}

/// For an unquoted heredoc at `at` (see [`heredoc_name`]): the span of body lines that bash
/// joins by backslash-newlines into the delimiter (`EO\⏎F`), where it ends the body and
/// tree-sitter-bash does not; its first byte and the end of its last line. None when a line
/// that is the delimiter alone comes first.
fn joined_delimiter(source: &[u8], at: usize) -> Option<(usize, usize)> {
    let name = heredoc_name(source, at)?;
    let mut start = at + memchr::memchr(b'\n', &source[at..])? + 1;
    while start < source.len() {
        let (mut joined, mut end) = (Vec::new(), start);
        loop {
            let line_end = memchr::memchr(b'\n', &source[end..]).map_or(source.len(), |i| end + i);
            let line = &source[end..line_end];
            let slashes = line.iter().rev().take_while(|&&b| b == b'\\').count();
            if slashes % 2 == 1 && line_end < source.len() {
                joined.extend_from_slice(&line[..line.len() - 1]);
                end = line_end + 1;
                continue;
            }
            joined.extend_from_slice(line);
            end = line_end;
            break;
        }
        if joined == name {
            let spans_lines = source[start..end].contains(&b'\n');
            return (spans_lines && end - start > name.len()).then_some((start, end));
        }
        start = end + 1;
    }
    None
}

/// For the `}` at `at`: the blank before it, when that blank follows `fi`, `done` or `esac` as
/// a word of its own (`fi }`), which bash reads as the end of the command before `}`.
fn brace_after_keyword(source: &[u8], at: usize) -> Option<usize> {
    let blank = at.checked_sub(1).filter(|&b| is_blank(source[b]))?;
    let end = source[..blank]
        .iter()
        .rposition(|&b| !is_blank(b))
        .map(|i| i + 1)?;
    let keyword = [&b"fi"[..], b"done", b"esac"]
        .into_iter()
        .find(|k| source[..end].ends_with(k))?;
    // The keyword starts a command: after a `;` or a line break (`echo fi }` prints it).
    let start = end - keyword.len();
    let before = source[..start].iter().rposition(|&b| !is_blank(b));
    let alone = before.is_none_or(|i| matches!(source[i], b'\n' | b';'));
    alone.then_some(blank)
}

/// Whether the word before the blank at `blank` is a redirection (`>/dev/null`, `2>&1`).
fn follows_redirect(source: &[u8], blank: usize) -> bool {
    let before = &source[..blank];
    let start = before
        .iter()
        .rposition(|&b| is_blank(b) || b == b'\n' || b == b';')
        .map_or(0, |i| i + 1);
    before[start..].iter().any(|&b| b == b'>' || b == b'<')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::parser::{BashParser, error_count};

    /// Scripts tree-sitter-bash misreads, each with the statement that must survive it.
    const MISREAD: &[&str] = &[
        "[ \"$BASH_VERSION\" \\< \"$req\" ] && echo old >&2\necho SUCCESS\n",
        "if [ \"$a\" \\> \"$b\" ]; then echo hi; fi\necho SUCCESS\n",
        "[[ $a \\< $b ]] && echo x\necho SUCCESS\n",
        "n=$((10#$v + 1))\necho SUCCESS\n",
        "n=$(( 16#${hex} ))\necho SUCCESS\n",
        "grep -q x >/dev/null <<<\"$s\"\necho SUCCESS\n",
        "read -r a b 2>/dev/null <<< \"$line\"\necho SUCCESS\n",
        "for i do\n  echo \"$i\"\ndone\necho SUCCESS\n",
        "x=1; for file  do echo \"$file\"; done\necho SUCCESS\n",
        "url=\"${line#*](}\"\necho SUCCESS\n",
        "base=${f%(*}; rest=${f/(/ }\necho SUCCESS\n",
        "if [[ \"$l\" =~ ^([a-z_:]*)\\{([^}]*)\\}$ ]]; then echo hi; fi\necho SUCCESS\n",
        "[[ $l =~ ^${p}([^}]*)$ ]] && echo hi\necho SUCCESS\n",
        "c=x\necho \"x${c:+ ($c)}\" ${c:-(C: ${c})}\necho SUCCESS\n",
        "echo \"${A:+$A; }fallback\"\necho SUCCESS\n",
        "echo \"${r:-_(none)_}\" ${r:-x(y)} \"${r:-a)b}\"\n# Completed\necho SUCCESS\n",
        "echo -n \"${text:$i:1}\" ${text:$i:$n}\necho SUCCESS\n",
        "exec 3<>/dev/tcp/${H}/${P}\ncat <> file\necho SUCCESS\n",
        "log() { if true; then echo \"  $1\"; fi }\nw() { while :; do break; done }\necho SUCCESS\n",
        "usage() {\n    cat << 'USAGE'\nHome\nUSAGE:\n  x\nUSAGE\n}\ncat <<-EOF\n\tEOF2\n\tEOF\necho SUCCESS\n",
        "cat <<EOF''\nEOF\ncat <<E''OF\nEOF\ncat <<-$'EOF'\nEOF\ncat <<$\"EOF\"\nEOF\necho SUCCESS\n",
    ];

    #[test]
    fn masked_misreads_parse_without_errors_and_keep_offsets() {
        let mut parser = BashParser::new().expect("parser");
        for script in MISREAD {
            let masked = mask(script.as_bytes());
            assert_eq!(masked.len(), script.len());
            assert!(
                matches!(masked, Cow::Owned(_)),
                "nothing masked in {script:?}"
            );
            let tree = parser.parse(&masked).expect("parse");
            assert_eq!(
                error_count(&tree),
                0,
                "{script:?}: {}",
                tree.root_node().to_sexp()
            );
            let last = tree
                .root_node()
                .named_child(tree.root_node().named_child_count() as u32 - 1);
            let last = last.expect("a last statement");
            assert_eq!(
                &script.as_bytes()[last.start_byte()..last.end_byte()],
                b"echo SUCCESS",
                "{script:?}"
            );
        }
    }

    #[test]
    fn a_carriage_return_starting_a_line_is_part_of_the_command_name() {
        // A fuzz case: `\recho COMPLETE` runs a command named `\recho` in bash and dash.
        let mut parser = BashParser::new().expect("parser");
        let script = b"#!/bin/sh\nx=1\n\recho COMPLETE | tee log\n";
        let analysis =
            crate::analyze::analyze(&mut parser, script, crate::analyze::Vocabulary::Exact)
                .expect("analysis");
        assert!(analysis.legacy.is_empty(), "{:?}", analysis.legacy);
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for script in [
            "echo a\\<b # see #12\n",
            "cat <<< \"$x\"\nx=a1#b\ncat \\\\<file\n",
            "for i in a b; do :; done\necho for x do\nfor i\ndo :; done\n",
            "x=${a:-(default)} y=$(ls) z=${#arr[@]}\n",
            "echo fi }; echo done } esac }\n",
            "cat <<EOF\nEOF\n# cat << EOF\nEOFX\necho $((1<<2))\n",
            "[[ $x =~ ^${p}[0-9]+$ ]] && [[ $y =~ \"a}\" ]]\n",
            "echo a\r\n\r\necho b\r\n",
            // An open quote runs past the word: no delimiter to mask (a fuzz case).
            "cat <<EOF'\nx\n'\nEOF\n",
        ] {
            let masked = mask(script.as_bytes());
            assert!(
                matches!(masked, Cow::Borrowed(_)),
                "{script:?} -> {:?}",
                String::from_utf8_lossy(&masked)
            );
        }
    }
}
