//! `docs/codes.md`, rendered from the code catalogue (`src/codes.rs`) and the rule registry.

use crate::codes::{Area, CODES};

/// `docs/codes.md`: a title, an introduction, then a table of codes per area.
pub fn markdown() -> String {
    let mut out = String::from("# Error and note codes\n\n");
    out.push_str(
        "Every UPPER_SNAKE_CASE code skillmod prints: in `error[CODE]` on stderr (exit status 2) \
         when it stops a command, in the `errors` and `notes` of migrate's and restore's reports, \
         as the reason of a check finding, in validate's errors, and in the JSON document a \
         migrated skill prints. This file is generated from `src/codes.rs` \
         (`SKILLMOD_BLESS=1 cargo test --lib codes` rewrites it), and `cargo test` fails when it \
         drifts from the source.",
    );
    out.push_str(&format!(
        " check's rule codes {}–{} are documented by `skillmod rule --all` and \
         [check.md](check.md#rules).\n",
        crate::domain::rules::Rule::ALL[0].code(),
        crate::domain::rules::Rule::ALL[crate::domain::rules::Rule::ALL.len() - 1].code()
    ));
    for area in Area::ALL {
        out.push_str(&format!(
            "\n## {}\n\n| code | meaning |\n| --- | --- |\n",
            area.title()
        ));
        for code in CODES.iter().filter(|c| c.area == area) {
            out.push_str(&format!("| `{}` | {} |\n", code.code, code.meaning));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn docs_codes_md_is_generated_from_the_catalogue() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join("codes.md");
        let expected = super::markdown();
        if std::env::var_os("SKILLMOD_BLESS").is_some() {
            std::fs::write(&path, &expected).expect("write docs/codes.md");
            return;
        }
        let actual = std::fs::read_to_string(&path).unwrap_or_default();
        let first_difference = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(actual.lines().count().min(expected.lines().count()))
            + 1;
        assert!(
            actual == expected,
            "docs/codes.md is not what src/codes.rs renders (first difference at line {first_difference}); \
             run `SKILLMOD_BLESS=1 cargo test --lib codes` to regenerate it"
        );
    }
}
