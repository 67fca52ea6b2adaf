//! Minimal edits of a settings file: one key set, every other byte kept (comments, quoting, blank
//! lines, line endings). toml_edit finds the key and the span of its value; an existing value is
//! replaced where it stands, a missing key is appended as the last line, in the file's own line
//! ending. A valid settings file has top-level keys only (no table could pass `Settings`), so the
//! last line is a top-level key; the result is parsed again and must say what was asked.

use crate::analyze::Vocabulary;

/// The line that records `vocabulary` in a settings file.
pub fn vocabulary_line(vocabulary: Vocabulary) -> String {
    format!("vocabulary = \"{}\"", vocabulary.as_str())
}

/// A settings file's text with `vocabulary` set, and the byte range of the original that was
/// replaced with the length of its replacement (for the diff). Err says why the text cannot be
/// edited safely.
pub fn set_vocabulary(
    text: &str,
    vocabulary: Vocabulary,
) -> Result<(String, (std::ops::Range<usize>, usize)), String> {
    let document = toml_edit::Document::parse(text).map_err(|e| {
        let message = e.message().trim().replace('\n', " ");
        format!("cannot be read as TOML for an edit ({message})")
    })?;
    let value = format!("\"{}\"", vocabulary.as_str());
    let (range, replacement) = match document.as_table().get("vocabulary") {
        Some(item) => {
            let span = item
                .as_value()
                .and_then(toml_edit::Value::span)
                .ok_or_else(|| "its vocabulary key is not a plain value".to_string())?;
            (span, value)
        }
        None => {
            let ending = if text.contains("\r\n") { "\r\n" } else { "\n" };
            let before = if text.is_empty() || text.ends_with('\n') {
                ""
            } else {
                ending
            };
            (
                text.len()..text.len(),
                format!("{before}{}{ending}", vocabulary_line(vocabulary)),
            )
        }
    };
    let mut edited = String::with_capacity(text.len() + replacement.len());
    edited.push_str(&text[..range.start]);
    edited.push_str(&replacement);
    edited.push_str(&text[range.end..]);
    match super::parse(&edited) {
        Ok(settings) if settings.vocabulary == Some(vocabulary) => {
            let len = replacement.len();
            Ok((edited, (range, len)))
        }
        _ => Err("would not read back as the vocabulary asked for after the edit".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(text: &str) -> String {
        set_vocabulary(text, Vocabulary::Original)
            .expect("editable")
            .0
    }

    #[test]
    fn a_missing_key_is_appended_as_the_last_line() {
        assert_eq!(set(""), "vocabulary = \"original\"\n");
        assert_eq!(
            set("# only a comment\n"),
            "# only a comment\nvocabulary = \"original\"\n"
        );
        assert_eq!(
            set("mode = 'comment'"),
            "mode = 'comment'\nvocabulary = \"original\"\n"
        );
    }

    #[test]
    fn comments_blank_lines_and_line_endings_are_kept() {
        assert_eq!(
            set("# head\nmode = 'comment' # why\n\n# trailing\n"),
            "# head\nmode = 'comment' # why\n\n# trailing\nvocabulary = \"original\"\n"
        );
        assert_eq!(
            set("include = [\r\n  '*.sh', # a\r\n]\r\n"),
            "include = [\r\n  '*.sh', # a\r\n]\r\nvocabulary = \"original\"\r\n"
        );
    }

    #[test]
    fn an_existing_value_is_replaced_where_it_stands() {
        let (text, (range, len)) = set_vocabulary(
            "vocabulary = 'exact'   # keep me\nmode='comment'\n",
            Vocabulary::Original,
        )
        .expect("editable");
        assert_eq!(
            text,
            "vocabulary = \"original\"   # keep me\nmode='comment'\n"
        );
        assert_eq!((range, len), (13..20, 10));
    }

    #[test]
    fn text_that_is_not_toml_is_not_edited() {
        assert!(set_vocabulary("mode = \n", Vocabulary::Exact).is_err());
    }
}
