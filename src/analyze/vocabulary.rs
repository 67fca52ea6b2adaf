//! Which printed lines count as legacy result lines. `decorated` (the default) reads the markers
//! as real skills print them: after decorations (emoji, `✓`, `[OK]`, colour codes, indentation),
//! upper case or capitalized (`SUCCESS`, `Success!`), with `COMPLETED` and `Updated:` (a modified
//! file). `exact` takes the markers as written: `SUCCESS`/`COMPLETE` as the whole line,
//! `Confidence:`/`Created:`/`Modified:` starting it. `original` reads what the original TypeScript
//! parser read: `decorated`'s lines in any letter case, and `Generated:` (a created file). The
//! colon stays required: the original's optional colon turned "Modified 3 files" into a
//! deliverable named "3".

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use serde::{Deserialize, Serialize};

use super::words::{Printed, Segment};
use crate::domain::legacy::{LegacyKind, LegacyValue};

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Vocabulary {
    /// The markers after decorations (✅, ✓, `[OK]`, colour codes, indentation), upper case or
    /// capitalized, with `COMPLETED` and `Updated:`.
    #[default]
    Decorated,
    /// The exact markers: `SUCCESS`, `COMPLETE`, `Confidence:`, `Created:`, `Modified:`.
    Exact,
    /// What the original parser read: any case, decorations (✅, ✓, `[OK]`) before the marker,
    /// `COMPLETED`, `Updated:` and `Generated:`.
    Original,
}

/// Markers that start a line carrying a value in the original vocabulary (compared ignoring
/// case), and the kind each gives; the exact vocabulary's are `LegacyKind::marker`.
const VALUE_MARKERS_ORIGINAL: [(&str, LegacyKind); 5] = [
    ("confidence:", LegacyKind::Confidence),
    ("created:", LegacyKind::Created),
    ("modified:", LegacyKind::Modified),
    ("updated:", LegacyKind::Modified),
    ("generated:", LegacyKind::Created),
];

/// The decorated vocabulary's value markers: the original's but `Generated:` (compared upper case
/// or capitalized).
const VALUE_MARKERS_DECORATED: [(&str, LegacyKind); 4] = [
    ("confidence:", LegacyKind::Confidence),
    ("created:", LegacyKind::Created),
    ("modified:", LegacyKind::Modified),
    ("updated:", LegacyKind::Modified),
];

/// Whole-line markers of the original and decorated vocabularies (compared ignoring case, or
/// upper case or capitalized).
const LINE_MARKERS_ORIGINAL: [(&str, LegacyKind); 3] = [
    ("success", LegacyKind::Success),
    ("complete", LegacyKind::Complete),
    ("completed", LegacyKind::Complete),
];

impl Vocabulary {
    pub fn as_str(self) -> &'static str {
        match self {
            Vocabulary::Decorated => "decorated",
            Vocabulary::Exact => "exact",
            Vocabulary::Original => "original",
        }
    }

    /// The markers that start a line carrying a value, beyond the exact vocabulary's.
    fn value_markers(self) -> &'static [(&'static str, LegacyKind)] {
        match self {
            Vocabulary::Exact => &[],
            Vocabulary::Decorated => &VALUE_MARKERS_DECORATED,
            Vocabulary::Original => &VALUE_MARKERS_ORIGINAL,
        }
    }

    /// The strings the marker search looks for, and whether case is ignored.
    fn patterns(self) -> (Vec<&'static str>, bool) {
        match self {
            Vocabulary::Exact => (LegacyKind::ALL.iter().map(|k| k.marker()).collect(), false),
            // Decorated's case is checked when a line is classified; the search ignores it.
            Vocabulary::Decorated | Vocabulary::Original => (
                self.value_markers()
                    .iter()
                    .map(|(m, _)| *m)
                    .chain(["success", "complete"])
                    .collect(),
                true,
            ),
        }
    }

    /// One searcher for every marker text of this vocabulary (ignoring ASCII case for
    /// `original`), built once.
    fn searcher(self) -> &'static AhoCorasick {
        static EXACT: OnceLock<AhoCorasick> = OnceLock::new();
        static DECORATED: OnceLock<AhoCorasick> = OnceLock::new();
        static ORIGINAL: OnceLock<AhoCorasick> = OnceLock::new();
        let cell = match self {
            Vocabulary::Exact => &EXACT,
            Vocabulary::Decorated => &DECORATED,
            Vocabulary::Original => &ORIGINAL,
        };
        cell.get_or_init(|| {
            let (patterns, ignore_case) = self.patterns();
            AhoCorasick::builder()
                .ascii_case_insensitive(ignore_case)
                .build(patterns)
                .unwrap_or_else(|_| unreachable!("fixed marker patterns always build"))
        })
    }

    /// Start offsets of every marker in `source` (overlaps included), sorted.
    pub fn marker_offsets(self, source: &[u8]) -> Vec<usize> {
        let mut hits: Vec<usize> = self
            .searcher()
            .find_overlapping_iter(source)
            .filter(|m| self.reads(&source[m.start()..], m.end() - m.start()))
            .map(|m| m.start())
            .collect();
        hits.sort_unstable();
        hits.dedup();
        hits
    }

    /// Whether a marker found at the start of `text` (`len` bytes) is one this vocabulary reads:
    /// `decorated` takes it upper case or capitalized and as a whole word (`COMPLETED` too), so
    /// "successful" in a comment is no marker.
    fn reads(self, text: &[u8], len: usize) -> bool {
        if self != Vocabulary::Decorated {
            return true;
        }
        let word = &text[..len];
        let cased = word.iter().all(|b| !b.is_ascii_lowercase())
            || (word[0].is_ascii_uppercase() && word[1..].iter().all(|b| !b.is_ascii_uppercase()));
        let rest = &text[len..];
        let rest = match rest.first() {
            Some(b'd' | b'D') if word.eq_ignore_ascii_case(b"complete") => &rest[1..],
            _ => rest,
        };
        let whole = word.ends_with(b":") || !rest.first().is_some_and(u8::is_ascii_alphabetic);
        cased && whole
    }

    /// Whether `source` holds a marker of a success line (SUCCESS, COMPLETE) anywhere.
    pub fn mentions_success(self, source: &[u8]) -> bool {
        match self {
            Vocabulary::Exact => [LegacyKind::Success, LegacyKind::Complete]
                .iter()
                .any(|k| memchr::memmem::find(source, k.marker().as_bytes()).is_some()),
            Vocabulary::Decorated | Vocabulary::Original => self
                .searcher()
                .find_overlapping_iter(source)
                .filter(|m| self.reads(&source[m.start()..], m.end() - m.start()))
                .any(|m| m.pattern().as_usize() >= self.value_markers().len()),
        }
    }

    /// One line of a skill's output, classified as the analyzer classifies an `echo` that prints
    /// it: `validate` reads output through this, so both judge the same text alike.
    pub fn classify_line(self, line: &str) -> Option<(LegacyKind, Option<LegacyValue>)> {
        self.classify(&Printed {
            segments: vec![Segment::Literal(line.to_string())],
        })
    }

    /// The markers, for messages (read from the marker tables).
    pub fn summary(self) -> String {
        match self {
            Vocabulary::Exact => LegacyKind::ALL.map(|k| k.marker()).join(", "),
            Vocabulary::Decorated | Vocabulary::Original => {
                let markers: Vec<&str> = LINE_MARKERS_ORIGINAL
                    .iter()
                    .chain(self.value_markers())
                    .map(|(m, _)| *m)
                    .collect();
                let case = match self {
                    Vocabulary::Original => "any case",
                    _ => "upper case or capitalized",
                };
                format!("{}, {case}, after decorations", markers.join(", "))
            }
        }
    }

    /// Classify printed text that may hold several lines (`echo -e "…\n…"`, a printf that reuses
    /// its format), as validate reads the output line by line: a legacy statement when its
    /// result lines are all of one kind (SUCCESS and COMPLETE are one), with each line's value.
    /// A value kind is recorded as the runtime reads it: every line a result line (one value
    /// each), or one result line last, after lines with no colon (the value after the first).
    pub fn classify_text(self, printed: &Printed) -> Option<(LegacyKind, Vec<LegacyValue>)> {
        let lines = printed.lines();
        if lines.len() < 2 {
            return self
                .classify(printed)
                .map(|(kind, value)| (kind, value.into_iter().collect()));
        }
        let record = |kind: LegacyKind| match kind {
            LegacyKind::Complete => LegacyKind::Success,
            other => other,
        };
        let mut found: Option<LegacyKind> = None;
        let mut values = Vec::new();
        let mut plain_with_colon = false;
        let mut results = 0;
        for line in &lines {
            let Some((kind, value)) = self.classify(line) else {
                plain_with_colon |= line.render().contains(':');
                continue;
            };
            match found {
                None => found = Some(kind),
                Some(first) if record(kind) == record(first) => {}
                Some(_) => return None,
            }
            values.extend(value);
            results += 1;
        }
        let last_is_result = lines.last().is_some_and(|l| self.classify(l).is_some());
        found
            .filter(|kind| {
                matches!(kind, LegacyKind::Success | LegacyKind::Complete)
                    || results == lines.len()
                    || (results == 1 && last_is_result && !plain_with_colon)
            })
            .map(|kind| (kind, values))
    }

    /// Classify printed text; `None` when it is not a legacy line of this vocabulary. In
    /// `decorated`, a capitalized marker framed as a heading (`== Completed ==`, `## Success`)
    /// titles a section of a listing, so it is no result line; `=== SUCCESS ===` is one.
    pub fn classify(self, printed: &Printed) -> Option<(LegacyKind, Option<LegacyValue>)> {
        let exact_lines = [LegacyKind::Success, LegacyKind::Complete].map(|k| (k.marker(), k));
        let exact_values = [
            LegacyKind::Confidence,
            LegacyKind::Created,
            LegacyKind::Modified,
        ]
        .map(|k| (k.marker(), k));
        let undecorated;
        let original = printed;
        let (printed, line_markers, value_markers): (&Printed, &[_], &[_]) = match self {
            Vocabulary::Exact => (printed, &exact_lines, &exact_values),
            Vocabulary::Decorated | Vocabulary::Original => {
                undecorated = undecorate(printed)?;
                (&undecorated, &LINE_MARKERS_ORIGINAL, self.value_markers())
            }
        };
        let ignore_case = self != Vocabulary::Exact;
        // `marker` as the vocabulary reads it in `text` (the markers of the tables are lower case).
        let same = |marker: &str, text: &str| match self {
            Vocabulary::Exact => marker == text,
            Vocabulary::Original => marker.eq_ignore_ascii_case(text),
            Vocabulary::Decorated => {
                marker.eq_ignore_ascii_case(text)
                    && (text == marker.to_ascii_uppercase() || is_capitalized(text))
            }
        };
        if let Some(text) = printed.as_literal() {
            let rest = if ignore_case {
                text.trim_end_matches(|c: char| !c.is_alphanumeric())
            } else {
                &text
            };
            if let Some((_, kind)) = line_markers.iter().find(|(m, _)| same(m, rest)) {
                let heading = self == Vocabulary::Decorated && is_capitalized(rest) && {
                    let head = strip_ansi(original.literal_prefix());
                    let head = head.trim_start();
                    head.starts_with('#') || head.starts_with("==") || head.starts_with("--")
                };
                return (!heading).then_some((*kind, None));
            }
        }
        let rest = printed.literal_prefix();
        for (marker, kind) in value_markers {
            if rest
                .get(..marker.len())
                .is_some_and(|head| same(marker, head))
            {
                let value = printed.after_prefix(marker.len());
                let value = match value.as_literal() {
                    Some(text) => LegacyValue::Literal(text.trim().to_string()),
                    None => LegacyValue::RunTime(value.render().trim().to_string()),
                };
                return Some((*kind, Some(value)));
            }
        }
        None
    }
}

/// `Success`, `Created:`: an upper-case letter, then no upper-case one.
fn is_capitalized(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase()) && !chars.any(|c| c.is_ascii_uppercase())
}

/// The printed text without what the original vocabulary reads as decoration: blanks, symbols,
/// emoji and short tags before the marker, colour variables (`${GREEN}`, `$NC`) anywhere before
/// it or at the end, and ANSI escape sequences anywhere. `None` when the decoration says the line
/// failed (`[ERROR] success`, `✗ Created: a`): such a line is never a result line.
fn undecorate(printed: &Printed) -> Option<Printed> {
    let mut out = Printed::default();
    let mut decoration = String::new();
    let mut in_prefix = true;
    let count = printed.segments.len();
    for (i, segment) in printed.segments.iter().enumerate() {
        match segment {
            Segment::Dynamic(source) if is_colour_variable(source) => {
                // A colour before the marker, or closing the line, prints no text that matters.
                if in_prefix || printed.segments[i + 1..count].iter().all(is_colourless) {
                    continue;
                }
                out.segments.push(segment.clone());
            }
            Segment::Dynamic(_) => {
                in_prefix = false;
                out.segments.push(segment.clone());
            }
            Segment::Literal(text) => {
                let text = strip_ansi(text);
                if in_prefix {
                    let skip = decoration_len(&text);
                    decoration.push_str(&text[..skip]);
                    if skip < text.len() {
                        in_prefix = false;
                        out.push_literal(&text[skip..]);
                    }
                } else {
                    out.push_literal(&text);
                }
            }
        }
    }
    (!says_failure(&decoration)).then_some(out)
}

/// A segment that prints nothing a reader sees: a colour variable or escape sequences alone.
fn is_colourless(segment: &Segment) -> bool {
    match segment {
        Segment::Dynamic(source) => is_colour_variable(source),
        Segment::Literal(text) => strip_ansi(text).trim().is_empty(),
    }
}

/// `$NAME` or `${NAME}` named as scripts name colour codes: an upper-case name with a colour or
/// style word in it (`${GREEN}`, `$NC`, `${BOLD}`, `$COLOR_RESET`, `${LIGHT_BLUE}`). Other
/// upper-case variables are values (`echo "Complete: $N"` prints a count).
fn is_colour_variable(source: &str) -> bool {
    const WORDS: [&str; 27] = [
        "RED",
        "GREEN",
        "YELLOW",
        "BLUE",
        "CYAN",
        "MAGENTA",
        "PURPLE",
        "WHITE",
        "BLACK",
        "GRAY",
        "GREY",
        "ORANGE",
        "NC",
        "RESET",
        "BOLD",
        "DIM",
        "NORMAL",
        "RST",
        "END",
        "OFF",
        "COLOR",
        "COLOUR",
        "CLR",
        "UNDERLINE",
        "BRIGHT",
        "LIGHT",
        "DARK",
    ];
    let name = source.strip_prefix('$').unwrap_or("");
    let name = name
        .strip_prefix('{')
        .and_then(|n| n.strip_suffix('}'))
        .unwrap_or(name);
    let upper = name.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    upper
        && name
            .split('_')
            .any(|part| WORDS.contains(&part.trim_end_matches(|c: char| c.is_ascii_digit())))
}

/// The text without ANSI CSI sequences (`ESC [ params letter`, colours and styles).
pub(crate) fn strip_ansi(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Words and symbols that mark a failed line in the original parser (checked first there too).
fn says_failure(decoration: &str) -> bool {
    let lower = decoration.to_ascii_lowercase();
    ["error", "fail", "abort"].iter().any(|w| lower.contains(w))
        || decoration.contains(['✗', '✘', '❌', '⛔'])
}

/// Bytes of decoration before a marker: blanks, symbols and emoji (anything but letters, digits
/// and `:`, so the first colon of a line is its marker's), and short bracketed tags like `[OK]`.
fn decoration_len(text: &str) -> usize {
    let mut at = 0;
    while let Some(c) = text[at..].chars().next() {
        if c == '[' {
            let tag = text[at + 1..]
                .char_indices()
                .take(12)
                .find(|(_, c)| *c == ']')
                .map(|(i, _)| i);
            match tag {
                Some(close) if text[at + 1..at + 1 + close].chars().all(tag_char) => {
                    at += close + 2;
                    continue;
                }
                _ => return at,
            }
        }
        if c.is_alphanumeric() || c == ':' {
            return at;
        }
        at += c.len_utf8();
    }
    at
}

fn tag_char(c: char) -> bool {
    c.is_alphanumeric() || c == ' ' || !c.is_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::words::Segment;

    #[test]
    fn every_marker_is_made_of_the_bytes_the_split_search_follows() {
        // The prefilter looks for quote-split markers only inside runs of these bytes.
        for vocabulary in [Vocabulary::Exact, Vocabulary::Original] {
            for marker in vocabulary.patterns().0 {
                assert!(
                    marker
                        .bytes()
                        .all(crate::analyze::prefilter::is_marker_byte),
                    "{marker}"
                );
            }
        }
    }

    fn literal(text: &str) -> Printed {
        Printed {
            segments: vec![Segment::Literal(text.to_string())],
        }
    }

    fn kind(vocabulary: Vocabulary, text: &str) -> Option<LegacyKind> {
        vocabulary.classify(&literal(text)).map(|(k, _)| k)
    }

    #[test]
    fn exact_takes_only_the_markers_as_written() {
        assert_eq!(
            kind(Vocabulary::Exact, "SUCCESS"),
            Some(LegacyKind::Success)
        );
        assert_eq!(kind(Vocabulary::Exact, "Success"), None);
        assert_eq!(kind(Vocabulary::Exact, "✅ Created: a"), None);
        assert_eq!(
            kind(Vocabulary::Exact, "Created: a"),
            Some(LegacyKind::Created)
        );
    }

    #[test]
    fn original_reads_decorations_case_and_more_markers() {
        let v = Vocabulary::Original;
        assert_eq!(kind(v, "✅ SUCCESS"), Some(LegacyKind::Success));
        assert_eq!(kind(v, "[OK] Success!"), Some(LegacyKind::Success));
        assert_eq!(kind(v, "  completed."), Some(LegacyKind::Complete));
        assert_eq!(kind(v, "✓ created: a.txt"), Some(LegacyKind::Created));
        assert_eq!(kind(v, "Updated: b.txt"), Some(LegacyKind::Modified));
        assert_eq!(kind(v, "🎉 Generated: c.md"), Some(LegacyKind::Created));
        assert_eq!(kind(v, "- CONFIDENCE: 0.9"), Some(LegacyKind::Confidence));
    }

    #[test]
    fn a_capitalized_marker_framed_as_a_heading_titles_a_section() {
        let v = Vocabulary::Decorated;
        assert_eq!(kind(v, "== Completed =="), None);
        assert_eq!(kind(v, "### Completed"), None);
        assert_eq!(kind(v, "\u{1b}[1m-- Success --\u{1b}[0m"), None);
        assert_eq!(kind(v, "=== SUCCESS ==="), Some(LegacyKind::Success));
        assert_eq!(kind(v, "✅ Completed"), Some(LegacyKind::Complete));
        assert_eq!(
            kind(Vocabulary::Original, "== Completed =="),
            Some(LegacyKind::Complete)
        );
    }

    #[test]
    fn original_still_needs_the_marker_and_its_colon() {
        let v = Vocabulary::Original;
        assert_eq!(kind(v, "Modified 3 files"), None);
        assert_eq!(kind(v, "Success rate: 3"), None);
        assert_eq!(kind(v, "Files created: 3"), None);
        assert_eq!(kind(v, "✅"), None);
        assert_eq!(kind(v, "[not a tag at all] SUCCESS"), None);
    }

    #[test]
    fn the_value_follows_the_decoration_and_marker() {
        let (_, value) = Vocabulary::Original
            .classify(&literal("✅ Created: out/report.md"))
            .expect("legacy line");
        assert_eq!(value, Some(LegacyValue::Literal("out/report.md".into())));
    }

    #[test]
    fn marker_offsets_ignore_case_only_in_original() {
        assert!(Vocabulary::Exact.marker_offsets(b"echo success").is_empty());
        assert_eq!(
            Vocabulary::Original.marker_offsets(b"echo success"),
            vec![5]
        );
        assert!(Vocabulary::Original.mentions_success(b"x COMPLETED"));
        assert!(!Vocabulary::Original.mentions_success(b"echo Updated: x"));
    }
}
