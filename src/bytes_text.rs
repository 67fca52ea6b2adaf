//! Bytes that are not UTF-8, kept. Shell scripts, the values they print and the names of their
//! folders are bytes; the JSON contract and skillmod's reports are UTF-8. Three forms carry such
//! bytes across without losing one:
//!
//! - **The contract's escape** ([`escape`]): in a value a skill reports (a deliverable, a
//!   message, the skill's name), each byte that is not part of valid UTF-8 becomes the four
//!   characters `\xHH` (lowercase hex); valid UTF-8 is kept as it is. Capture mode's runtime
//!   (`__skm_esc`) and comment mode's static block write the same string for the same bytes, and
//!   the document stays UTF-8 JSON that `validate --strict` accepts.
//! - **Git's quoting** ([`quote_path`]): paths in messages and in the backup manifest; in the
//!   machine formats (JSON, SARIF's messages) a path goes through [`report_path`], which writes
//!   a UTF-8 path as it is and quotes any other one as git does, the same string the text report
//!   shows (GitHub annotations, read as text in a CI log, also quote one with a control
//!   character: [`annotation_path`]); SARIF's URIs percent-encode the bytes
//!   ([`percent_encode`]).
//! - **Shown text** ([`visible`]): a script's source, a message that quotes it, a settings value,
//!   on its way to a terminal or a CI log, has each control character written as git writes it
//!   in a quoted path (`\033`), so a repository cannot act on the terminal through a report.
//! - **Marked text** ([`decode_marked`], [`marked_bytes`]): inside the analysis and the reports,
//!   a string holds each such byte as one character of U+10FF80..=U+10FFFF (the last 128 code
//!   points of plane 16's private use area), so `String` code keeps working and the bytes come
//!   back exactly. A script's own characters in that range are marked byte by byte too, so the
//!   way back is exact for every input.

use std::borrow::Cow;

/// The first of the 128 characters that stand for the bytes 0x80..=0xFF.
const MARK_BASE: u32 = 0x10_FF80;

/// The character that stands for byte `b` (0x80..=0xFF) in marked text.
fn mark(b: u8) -> char {
    char::from_u32(MARK_BASE + u32::from(b & 0x7f)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The byte a character of marked text stands for, if it is a mark.
fn unmark(c: char) -> Option<u8> {
    let code = u32::from(c);
    (MARK_BASE..=MARK_BASE + 0x7f)
        .contains(&code)
        .then(|| 0x80 | (code - MARK_BASE) as u8)
}

/// `bytes` as text: valid UTF-8 as it is, each other byte as a mark (and a real character in
/// the marks' range as the marks of its bytes).
pub(crate) fn decode_marked(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if unmark(c).is_some() {
                let mut buf = [0; 4];
                out.extend(c.encode_utf8(&mut buf).bytes().map(mark));
            } else {
                out.push(c);
            }
        }
        out.extend(chunk.invalid().iter().copied().map(mark));
    }
    out
}

/// Append byte `b` to marked text: ASCII as its character, any other byte as its mark.
pub(crate) fn push_byte(out: &mut String, b: u8) {
    if b.is_ascii() {
        out.push(char::from(b));
    } else {
        out.push(mark(b));
    }
}

/// The bytes marked text stands for (the inverse of [`decode_marked`]).
pub(crate) fn marked_bytes(text: &str) -> Cow<'_, [u8]> {
    if !text.chars().any(|c| unmark(c).is_some()) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match unmark(c) {
            Some(b) => out.push(b),
            None => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// Marked text with runs of marks that form valid UTF-8 turned into their characters (an `echo
/// -e '\303\251'` prints `é`).
pub(crate) fn normalize(text: String) -> String {
    match marked_bytes(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(bytes) => decode_marked(&bytes),
    }
}

/// The output contract's escape: valid UTF-8 kept, each other byte written `\xHH`.
///
/// ```
/// use skillmod::bytes_text::escape;
///
/// assert_eq!(escape(b"caf\xe9.txt"), "caf\\xe9.txt");
/// assert_eq!(escape("café.txt".as_bytes()), "café.txt");
/// ```
pub fn escape(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    Cow::Owned(out)
}

/// Marked text in the contract's escape: what a value found by the analysis reports.
pub(crate) fn escape_marked(text: &str) -> String {
    escape(&marked_bytes(text)).into_owned()
}

/// A file name or path as marked text (exact, whatever its bytes).
pub(crate) fn os_marked(name: &std::ffi::OsStr) -> String {
    match name.to_str() {
        Some(text) if !text.chars().any(|c| unmark(c).is_some()) => text.to_string(),
        _ => decode_marked(name.as_encoded_bytes()),
    }
}

/// A path from the bytes a tool printed (git's `-z` output): exact on Unix, where a path is
/// bytes; elsewhere decoded lossily.
pub(crate) fn path_from_bytes(bytes: &[u8]) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        std::path::PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// A path as git prints it (`core.quotePath`): as it is when plain, else in double quotes with C
/// escapes and octal bytes (control characters, quotes, backslashes, non-ASCII), so a line holds
/// one path and a diff header that names it still applies. `path` is marked text (see
/// `bytes_text`): bytes that are not UTF-8 are quoted as the bytes they are (`"caf\\351"`).
pub(crate) fn quote_path(path: &str) -> String {
    quote_bytes(&marked_bytes(path))
}

/// A file system path quoted as git quotes it (see [`quote_path`]).
pub(crate) fn quote_os(path: &std::path::Path) -> String {
    quote_bytes(path.as_os_str().as_encoded_bytes())
}

/// A path for a message: as `Path::display` shows it when it is UTF-8 without control
/// characters, quoted as git quotes it when it is not (a lossy decoding would name a file that
/// does not exist, and a terminal would act on a control character).
pub(crate) fn shown_path(path: &std::path::Path) -> std::borrow::Cow<'_, str> {
    match path.to_str() {
        Some(text) if !text.chars().any(is_terminal_control) => std::borrow::Cow::Borrowed(text),
        _ => std::borrow::Cow::Owned(quote_os(path)),
    }
}

/// A path (marked text) as a machine-read report writes it (JSON, SARIF's messages; GitHub
/// annotations through [`annotation_path`]): as it is when its bytes are UTF-8, so a tool finds the file by that name; quoted as
/// git quotes it (see [`quote_path`]) when they are not, the same string the text report shows,
/// since no JSON string holds those bytes.
pub(crate) fn report_path(path: &str) -> Cow<'_, str> {
    match marked_bytes(path) {
        Cow::Borrowed(_) => Cow::Borrowed(path),
        Cow::Owned(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Cow::Owned(text),
            Err(e) => Cow::Owned(quote_bytes(e.as_bytes())),
        },
    }
}

/// A path (marked text) in GitHub annotations, which a CI log shows as text: as [`report_path`]
/// writes it, so the runner finds the file, unless it holds a control character, which is
/// quoted as git quotes it (the string the text report shows).
pub(crate) fn annotation_path(path: &str) -> Cow<'_, str> {
    if path.chars().any(is_terminal_control) {
        Cow::Owned(quote_path(path))
    } else {
        report_path(path)
    }
}

/// A relative path (marked text) as a URI reference: unreserved characters and `/` kept, every
/// other byte of the path percent-encoded, so `my skill/x.sh` and `a:b/x.sh` stay paths (not
/// schemes) and a name that is not UTF-8 is its own bytes (`caf%E9`).
pub(crate) fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in marked_bytes(path).iter() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Serde helpers that write path fields of a report through [`report_path`]: `#[serde(
/// serialize_with = "crate::bytes_text::serde_path::one")]` (`::maybe` for an `Option`,
/// `::each` for a list).
pub(crate) mod serde_path {
    use serde::Serializer;
    use serde::ser::SerializeSeq;

    pub(crate) fn one<S: Serializer>(path: &str, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&super::report_path(path))
    }

    pub(crate) fn maybe<S: Serializer>(
        path: &Option<String>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match path {
            Some(path) => one(path, serializer),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn each<S: Serializer>(paths: &[String], serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(paths.len()))?;
        for path in paths {
            seq.serialize_element(&*super::report_path(path))?;
        }
        seq.end()
    }
}

/// Bytes quoted as git quotes a path (see [`quote_path`]).
pub(crate) fn quote_bytes(path: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(path)
        && !path
            .iter()
            .any(|&b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\')
    {
        return text.to_string();
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for &b in path {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..0x7f => out.push(char::from(b)),
            b => push_c_escape(&mut out, b),
        }
    }
    out.push('"');
    out
}

/// Byte `b` written as git writes it inside a quoted path: a C escape (`\a`, `\b`, `\t`, `\n`,
/// `\v`, `\f`, `\r`) or three octal digits (`\033`, `\177`, `\351`).
fn push_c_escape(out: &mut String, b: u8) {
    match b {
        b'\x07' => out.push_str("\\a"),
        b'\x08' => out.push_str("\\b"),
        b'\t' => out.push_str("\\t"),
        b'\n' => out.push_str("\\n"),
        b'\x0b' => out.push_str("\\v"),
        b'\x0c' => out.push_str("\\f"),
        b'\r' => out.push_str("\\r"),
        b => out.push_str(&format!("\\{b:03o}")),
    }
}

/// A character a terminal acts on instead of showing: the C0 controls but tab, DEL and the C1
/// controls (U+0080..=U+009F, which some terminals read as ESC sequences), and a mark of marked
/// text (see `bytes_text`), whose byte could be one.
fn is_terminal_control(c: char) -> bool {
    (c.is_control() && c != '\t') || unmark(c).is_some()
}

/// Text from a repository (a script's source, a file name, a settings value), or a message that
/// quotes it, made safe for a terminal and a CI log: every control character but tab written
/// visibly as git writes it in a quoted path (`\033`, `\a`, `\r`, `\n`, `\302\233` for U+009B;
/// a mark as its byte, `\351`), so a script cannot set the terminal's title, clear it or colour
/// it through skillmod's report. Everything else is kept as it is. Every human or terminal
/// output (text reports, GitHub annotations, stderr messages, the coloured diff) writes such
/// text through this; JSON and SARIF escape control characters themselves.
///
/// ```
/// use skillmod::bytes_text::visible;
///
/// assert_eq!(visible("echo \"\u{1b}]0;HACKED\u{7}\""), "echo \"\\033]0;HACKED\\a\"");
/// assert_eq!(visible("café\tok"), "café\tok");
/// ```
pub fn visible(text: &str) -> Cow<'_, str> {
    // Most lines are printable ASCII: one pass over the bytes says so.
    if text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || b == b'\t')
        || !text.chars().any(is_terminal_control)
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if let Some(b) = unmark(c) {
            push_c_escape(&mut out, b);
        } else if is_terminal_control(c) {
            for &b in c.encode_utf8(&mut [0; 4]).as_bytes() {
                push_c_escape(&mut out, b);
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`visible`] over bytes that may not be UTF-8 (a line of a script in the coloured diff): valid
/// UTF-8 as [`visible`] writes it, each other byte in octal.
pub(crate) fn visible_bytes(bytes: &[u8]) -> String {
    visible(&decode_marked(bytes)).into_owned()
}

/// The bytes of a path [`quote_bytes`] wrote: a quoted path unquoted (C escapes, octal bytes),
/// a plain one as it is; `None` for a quoted path that is not well formed.
pub(crate) fn unquote_path(text: &str) -> Option<Vec<u8>> {
    let Some(inner) = text.strip_prefix('"') else {
        return Some(text.as_bytes().to_vec());
    };
    let inner = inner.strip_suffix('"')?;
    let mut out = Vec::with_capacity(inner.len());
    let mut bytes = inner.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'"' => return None,
            b'\\' => {}
            b => {
                out.push(b);
                continue;
            }
        }
        let b = match bytes.next()? {
            b'a' => 0x07,
            b'b' => 0x08,
            b't' => b'\t',
            b'n' => b'\n',
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'r' => b'\r',
            b'"' => b'"',
            b'\\' => b'\\',
            first @ b'0'..=b'3' => {
                let mut value = u32::from(first - b'0');
                for _ in 0..2 {
                    match bytes.next()? {
                        d @ b'0'..=b'7' => value = value * 8 + u32::from(d - b'0'),
                        _ => return None,
                    }
                }
                u8::try_from(value).ok()?
            }
            _ => return None,
        };
        out.push(b);
    }
    Some(out)
}

/// A path as one argument of a command a user can paste into a shell: a leading `-` or `:` gets
/// `./` (never read as an option, nor as git's pathspec magic `:(glob)`), and anything a shell
/// would split or expand is single-quoted; a path whose bytes are not UTF-8 (marked text, see
/// `bytes_text`) or that holds a control character (which a terminal would act on) is written
/// `$'…'` with octal escapes (bash, zsh, ksh).
pub(crate) fn command_arg(path: &str) -> String {
    let bytes = marked_bytes(path);
    let lead = if path.starts_with(['-', ':']) {
        "./"
    } else {
        ""
    };
    if std::str::from_utf8(&bytes).is_err() || path.chars().any(is_terminal_control) {
        let mut out = format!("$'{lead}");
        for &b in bytes.iter() {
            match b {
                b'\\' | b'\'' => out.push_str(&format!("\\{}", char::from(b))),
                0x20..0x7f => out.push(char::from(b)),
                b => out.push_str(&format!("\\{b:03o}")),
            }
        }
        out.push('\'');
        return out;
    }
    let path = format!("{lead}{path}");
    let plain = |c: char| {
        c.is_ascii_alphanumeric()
            || matches!(c, '/' | '.' | '_' | '-' | '+' | ',' | ':' | '@' | '%' | '=')
    };
    if !path.is_empty() && path.chars().all(plain) {
        return path;
    }
    format!("'{}'", path.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_command_argument_is_never_an_option_and_never_split() {
        assert_eq!(command_arg("skills/a/execute.sh"), "skills/a/execute.sh");
        assert_eq!(command_arg("--exit-zero"), "./--exit-zero");
        assert_eq!(command_arg("dir with space/x.sh"), "'dir with space/x.sh'");
        assert_eq!(command_arg("it's $(x).sh"), "'it'\\''s $(x).sh'");
    }

    #[test]
    fn paths_are_quoted_the_way_git_quotes_them() {
        assert_eq!(quote_path("skills/a/execute.sh"), "skills/a/execute.sh");
        assert_eq!(quote_path("my skill/x.sh"), "my skill/x.sh");
        assert_eq!(quote_path("a\nb/x.sh"), "\"a\\nb/x.sh\"");
        assert_eq!(quote_path("é.sh"), "\"\\303\\251.sh\"");
        assert_eq!(quote_path("q\"\\.sh"), "\"q\\\"\\\\.sh\"");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_quoted_as_git_quotes_them_and_come_back() {
        let marked = decode_marked(b"skills/caf\xe9/execute.sh");
        assert_eq!(quote_path(&marked), "\"skills/caf\\351/execute.sh\"");
        assert_eq!(command_arg(&marked), "$'skills/caf\\351/execute.sh'");
        for bytes in [
            &b"skills/caf\xe9/execute.sh"[..],
            "é \"q\"\\\t\n.sh".as_bytes(),
            b"plain/x.sh",
            b"\x01\x7f\xff",
        ] {
            assert_eq!(unquote_path(&quote_bytes(bytes)).as_deref(), Some(bytes));
        }
        assert_eq!(unquote_path("\"a\\9\""), None);
        assert_eq!(unquote_path("\"a\"b\""), None);
        assert_eq!(unquote_path("\"open"), None);
    }

    use super::*;

    #[test]
    fn machine_reports_keep_a_utf8_path_and_quote_any_other_as_git_does() {
        assert_eq!(report_path("skills/café/x.sh"), "skills/café/x.sh");
        let marked = decode_marked(b"caf\xe9/execute.sh");
        assert_eq!(report_path(&marked), "\"caf\\351/execute.sh\"");
        assert_eq!(report_path(&marked), quote_path(&marked));
        assert_eq!(percent_encode(&marked), "caf%E9/execute.sh");
        assert_eq!(
            percent_encode("my skill/a:b/é.sh"),
            "my%20skill/a%3Ab/%C3%A9.sh"
        );
    }

    #[test]
    fn control_characters_are_shown_as_git_shows_them_in_a_path() {
        assert_eq!(visible("echo SUCCESS"), "echo SUCCESS");
        assert_eq!(visible("a\tb é ✓"), "a\tb é ✓");
        assert_eq!(
            visible("\u{1b}]0;HACKED\u{7}\u{1b}[2J"),
            "\\033]0;HACKED\\a\\033[2J"
        );
        assert_eq!(visible("a\rb\nc\u{0}\u{7f}"), "a\\rb\\nc\\000\\177");
        // C1 controls as their UTF-8 bytes, as git quotes them; a mark as the byte it stands for.
        assert_eq!(visible("\u{9b}31m"), "\\302\\23331m");
        assert_eq!(visible(&decode_marked(b"caf\xe9")), "caf\\351");
        assert_eq!(visible_bytes(b"\x9b\x1b"), "\\233\\033");
        // Every control character of a path is what git's quoting writes too.
        let name = "a\u{1b}[31mX.sh";
        assert_eq!(quote_path(name), format!("\"{}\"", visible(name)));
        assert_eq!(annotation_path(name), quote_path(name));
        assert_eq!(annotation_path("my skill/x.sh"), "my skill/x.sh");
        assert_eq!(command_arg(name), "$'a\\033[31mX.sh'");
        assert_eq!(shown_path(std::path::Path::new(name)), "\"a\\033[31mX.sh\"");
    }

    #[test]
    fn invalid_bytes_are_escaped_one_by_one_and_valid_text_is_kept() {
        assert_eq!(escape(b"plain/path.txt"), "plain/path.txt");
        assert_eq!(escape(b"caf\xe9.txt"), "caf\\xe9.txt");
        assert_eq!(escape("é".as_bytes()), "é");
        // A cut sequence, a lone continuation byte, an overlong form and a surrogate.
        assert_eq!(escape(b"\xe2\x82x"), "\\xe2\\x82x");
        assert_eq!(escape(b"\x80"), "\\x80");
        assert_eq!(escape(b"\xc0\xaf"), "\\xc0\\xaf");
        assert_eq!(escape(b"\xed\xa0\x80"), "\\xed\\xa0\\x80");
        assert_eq!(escape(b"\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
        assert_eq!(escape(b"\xf0\x9f\x98\x80!"), "\u{1f600}!");
    }

    #[test]
    fn marked_text_gives_back_the_exact_bytes() {
        let inputs: [&[u8]; 5] = [
            b"caf\xe9",
            "é".as_bytes(),
            b"\xff\xfe",
            "\u{10ff80}x".as_bytes(),
            b"a\xf4\x8f\xbf\xbf",
        ];
        for bytes in inputs {
            let marked = decode_marked(bytes);
            assert_eq!(&*marked_bytes(&marked), bytes);
            assert_eq!(escape_marked(&marked), escape(bytes));
        }
        assert_eq!(normalize(format!("{}{}", mark(0xc3), mark(0xa9))), "é");
    }
}
