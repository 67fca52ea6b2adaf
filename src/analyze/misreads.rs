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
    }
    for at in memchr::memmem::find_iter(source, b"=~") {
        for brace in regex_braces(source, at) {
            put(brace, b"x");
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

/// For `${NAME#…}`, `%` or `/` starting at `at`: the offsets of the brackets and parentheses in
/// its pattern, when the expansion closes on the same line with no other expansion or quote
/// inside.
fn pattern_parens(source: &[u8], at: usize) -> Vec<usize> {
    let name = source[at + 2..]
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
        .count();
    let start = at + 2 + name;
    if name == 0 || !matches!(source.get(start), Some(b'#' | b'%' | b'/')) {
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
    fn ordinary_text_is_left_alone() {
        for script in [
            "echo a\\<b # see #12\n",
            "cat <<< \"$x\"\nx=a1#b\ncat \\\\<file\n",
            "for i in a b; do :; done\necho for x do\nfor i\ndo :; done\n",
            "x=${a:-(default)} y=$(ls) z=${#arr[@]}\n",
            "[[ $x =~ ^${p}[0-9]+$ ]] && [[ $y =~ \"a}\" ]]\n",
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
