//! Turning an analysis into a plan of edits: legacy statements disabled, the JSON block placed at
//! the end of the main flow, and every rewrite re-parsed before anyone may write it.

pub mod capture;
pub mod placement;
pub mod plan;
pub mod template;
pub mod values;

use crate::analyze::{
    Analysis, BLOCK_DELIMITER, BLOCK_MARKER, BashParser, LegacyStatement, parser,
};
use crate::codes;
use crate::error::{Error, Result};
pub use plan::{Edit, Plan, Reason};
pub use template::Template;

/// What a disabled legacy statement says in its comment.
pub(crate) const LEGACY_PREFIX: &str = "# LEGACY (replaced with JSON): ";

/// Plan comment mode: each legacy statement becomes `:` with its text kept in a LEGACY comment,
/// and a heredoc JSON block rendered from `template` goes at the end of the main flow. Refused
/// with `BLOCK_UNREACHABLE` when the script's last command always exits, so the block would
/// never run.
pub fn plan_comment_mode(
    analysis: &Analysis,
    source: &[u8],
    template: &Template,
    context: &impl serde::Serialize,
    last_always_exits: Option<usize>,
) -> Result<Plan> {
    if let Some(line) = last_always_exits {
        return Err(Error::new(
            codes::BLOCK_UNREACHABLE,
            format!(
                "line {line}: the script's last command always exits, so a JSON block after it would never run; migrate with --mode capture, which prints the JSON on every exit path"
            ),
        ));
    }
    let mut plan = Plan::default();
    let eol = placement::line_ending(source);
    for statement in &analysis.legacy {
        disable_statement(&mut plan, analysis, source, statement);
    }
    let json = template.render(context)?;
    // Quoted heredoc: the shell expands nothing in it; only the time token is filled in by sed
    // (values never hold the token: the `json` filter escapes it inside strings).
    let printer = if json.contains(template::NOW_TOKEN) {
        format!(
            "sed \"s/{}/$(date -u +%Y-%m-%dT%H:%M:%SZ)/\"",
            template::NOW_TOKEN
        )
    } else {
        "cat".to_string()
    };
    let marker = format!(
        "{BLOCK_MARKER} template={} (written by skillmod; values from the legacy lines)",
        template.name
    );
    let mut body: Vec<String> = json
        .lines()
        .map(|l| l.trim_end_matches('\r').to_string())
        .collect();
    body.push(BLOCK_DELIMITER.to_string());
    let block = Block {
        marker,
        printer,
        body,
    };
    place_block(&mut plan, analysis, source, &block, eol);
    Ok(plan)
}

/// The comment-mode JSON block: its marker comment, the command that prints the heredoc (given
/// on its stdin, `<<'EOF_JSON'`), and the heredoc's lines up to its delimiter.
struct Block {
    marker: String,
    printer: String,
    body: Vec<String>,
}

/// Replace the statement's printer with `:` (same exit status, no output, the words expanded as
/// before) and keep its text in a comment where the shell grammar allows one.
fn disable_statement(
    plan: &mut Plan,
    analysis: &Analysis,
    source: &[u8],
    statement: &LegacyStatement,
) {
    let line = statement.line;
    if let crate::analyze::Form::Helper(_) = statement.form {
        // A helper's call still runs (its other work, its line for whoever watches): only its
        // output leaves stdout, for stderr.
        plan.push(
            statement.end,
            statement.end,
            " >&2",
            Reason::DisableLegacy { line },
        );
        place_legacy_comment(plan, analysis, source, statement);
        return;
    }
    if statement.form == crate::analyze::Form::Tee {
        // `echo … | tee FILE`: the file is still written; only the copy on stdout goes.
        plan.push(
            statement.end,
            statement.end,
            " >/dev/null",
            Reason::DisableLegacy { line },
        );
        place_legacy_comment(plan, analysis, source, statement);
        return;
    }
    if place_legacy_comment(plan, analysis, source, statement) {
        plan.push(
            statement.start,
            statement.end,
            noop_keeping_references(source, statement),
            Reason::DisableLegacy { line },
        );
        return;
    }
    // No room for a comment: keep the text as a single-quoted argument of `:`, which the shell
    // does not expand.
    let mut text = b": '".to_vec();
    for &b in &legacy_comment(source, statement) {
        if b == b'\'' {
            text.extend(b"'\\''");
        } else {
            text.push(b);
        }
    }
    text.push(b'\'');
    plan.push(
        statement.start,
        statement.end,
        text,
        Reason::DisableLegacy { line },
    );
}

/// `:` in the printer's place, with the statement's words when they expand anything: the shell
/// expands them as it did for the printer (a command substitution's side effects, `${X:=v}`,
/// `${X:?msg}`, an unset variable under `set -u`) and prints nothing, and a variable only the
/// disabled line read stays used (ShellCheck's SC2034). Plain text needs no words.
fn noop_keeping_references(source: &[u8], statement: &LegacyStatement) -> Vec<u8> {
    let words = &source[statement.printer.end.min(statement.end)..statement.end];
    if !expands(words) {
        return b":".to_vec();
    }
    let mut text = source[statement.start..statement.printer.start.max(statement.start)].to_vec();
    text.push(b':');
    text.extend_from_slice(words);
    text
}

/// Whether shell words hold an expansion: a `$` or a backquote outside single quotes.
fn expands(words: &[u8]) -> bool {
    let (mut single, mut double, mut escaped) = (false, false, false);
    for &b in words {
        match b {
            _ if escaped => escaped = false,
            b'\\' if !single => escaped = true,
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'$' | b'`' if !single => return true,
            _ => {}
        }
    }
    false
}

fn legacy_comment(source: &[u8], statement: &LegacyStatement) -> Vec<u8> {
    let mut comment = LEGACY_PREFIX.as_bytes().to_vec();
    comment.extend(crate::analyze::one_line(
        &source[statement.start..statement.end],
    ));
    comment
}

/// Put the statement's `# LEGACY (replaced with JSON): …` comment where the grammar allows one:
/// before a trailing comment or at the end of the line; never on a line of its own, which would
/// move every later line. False when neither is safe.
pub(crate) fn place_legacy_comment(
    plan: &mut Plan,
    analysis: &Analysis,
    source: &[u8],
    statement: &LegacyStatement,
) -> bool {
    let line = statement.line;
    let comment = legacy_comment(source, statement);
    let tree = &analysis.tree;
    if let Some(at) = placement::trailing_comment(tree, source, statement.end) {
        let mut text = comment;
        text.push(b' ');
        plan.push(at, at, text, Reason::LegacyComment { line });
        return true;
    }
    let line_end = placement::line_end(source, statement.end);
    if placement::comment_can_start_at(tree, source, line_end) {
        let mut text = b" ".to_vec();
        text.extend(comment);
        plan.push(line_end, line_end, text, Reason::LegacyComment { line });
        return true;
    }
    false
}

/// Put the block where the main flow ends without moving any line of the script: before a final
/// top-level `exit` on that exit's own line (the heredoc's lines follow it), else at the end of
/// the file. The file's line endings and its missing final newline are kept; in a CRLF file no
/// blank line is written, since bash would run a lone `\r` as a command.
fn place_block(plan: &mut Plan, analysis: &Analysis, source: &[u8], block: &Block, eol: &str) {
    let body = block.body.join(eol);
    if let Some(exit) = analysis.final_exit {
        let command = analysis
            .tree
            .root_node()
            .descendant_for_byte_range(exit, exit + 4)
            .and_then(|n| {
                std::iter::successors(Some(n), |n| n.parent())
                    .find(|n| n.start_byte() == exit && n.kind() == "command")
            });
        let command_end = command.map_or(exit + 4, |n| n.end_byte());
        let mut exit_end = command_end;
        // `exit 0;`: the group closes after the script's own `;` (tree-sitter-bash misreads a
        // `;` after a heredoc operator).
        let blanks = source[exit_end..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let own_semicolon = source.get(exit_end + blanks) == Some(&b';')
            && source.get(exit_end + blanks + 1) != Some(&b';');
        if own_semicolon {
            exit_end += blanks + 1;
        }
        let separator = if own_semicolon { "" } else { ";" };
        let bare = command.is_some_and(|c| c.child_by_field_name("argument").is_none());
        // `{ cat; exit N; } <<'EOF_JSON'`: the exit stays as it was, on its own line, and
        // tree-sitter-bash reads this form right (not `cat <<'EOF_JSON'; exit N`). A bare `exit`
        // exits with the status of the command before it, so that status is kept.
        let open = if bare {
            format!("skillmod_status=$?; {{ {}; ", block.printer)
        } else {
            format!("{{ {}; ", block.printer)
        };
        plan.push(exit, exit, open, Reason::JsonBlock);
        if bare {
            let status = " \"${skillmod_status}\"";
            plan.push(command_end, command_end, status, Reason::JsonBlock);
        }
        let close = format!("{separator} }} <<'{BLOCK_DELIMITER}'");
        plan.push(exit_end, exit_end, close, Reason::JsonBlock);
        let line_end = placement::line_end(source, exit_end);
        match placement::trailing_comment(&analysis.tree, source, exit_end) {
            Some(at) => plan.push(at, at, format!("{} ", block.marker), Reason::JsonBlock),
            None => plan.push(
                line_end,
                line_end,
                format!(" {}", block.marker),
                Reason::JsonBlock,
            ),
        }
        let after = memchr::memchr(b'\n', &source[line_end..]).map(|i| line_end + i + 1);
        match after {
            Some(at) => plan.push(at, at, format!("{body}{eol}"), Reason::JsonBlock),
            None => plan.push(
                source.len(),
                source.len(),
                format!("{eol}{body}"),
                Reason::JsonBlock,
            ),
        }
        return;
    }
    let joined = format!(
        "{}{eol}{} <<'{BLOCK_DELIMITER}'{eol}{body}",
        block.marker, block.printer
    );
    let blank = if eol == "\n" { eol } else { "" };
    let end = source.len();
    let text = if source.is_empty() {
        format!("{joined}{eol}")
    } else if source.ends_with(b"\n") {
        format!("{blank}{joined}{eol}")
    } else {
        format!("{eol}{blank}{joined}")
    };
    plan.push(end, end, text, Reason::JsonBlock);
}

/// Apply the plan and re-parse (incrementally, from the analysis' tree): a rewrite with more
/// parse errors than the original is refused.
pub fn apply_checked(
    plan: &Plan,
    analysis: &Analysis,
    source: &[u8],
    parser: &mut BashParser,
) -> Result<Vec<u8>> {
    let checked = plan.without_runtime();
    let rewritten = checked.apply(source)?;
    let mut old = analysis.tree.clone();
    for edit in checked.input_edits(source) {
        old.edit(&edit);
    }
    let tree = parser.reparse(&rewritten, &old)?;
    let original_errors = analysis.parse_errors;
    let errors = parser::error_count(&tree);
    if errors > original_errors {
        return Err(Error::new(
            codes::REWRITE_PARSE_ERROR,
            format!(
                "the rewritten script would not parse ({errors} parse errors, the original had {original_errors}); nothing was written. Please report this script"
            ),
        ));
    }
    if checked.edits.len() == plan.edits.len() {
        return Ok(rewritten);
    }
    plan.apply(source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{self, Vocabulary};

    #[test]
    fn rewrite_that_breaks_the_syntax_is_refused() {
        let source = b"ls -la /tmp\nif true; then\n  echo SUCCESS\nfi\necho done\n";
        let mut parser = BashParser::new().expect("parser");
        let analysis = analyze::analyze(&mut parser, source, Vocabulary::Exact).expect("analysis");
        let mut plan = Plan::default();
        let fi = source.windows(2).position(|w| w == b"fi").expect("fi");
        plan.push(fi, fi + 2, "", Reason::JsonBlock);
        let result = apply_checked(&plan, &analysis, source, &mut parser);
        assert_eq!(result.map_err(|e| e.code), Err(codes::REWRITE_PARSE_ERROR));
    }

    #[test]
    fn valid_rewrite_passes_the_incremental_check() {
        let source = b"if true; then\n  echo SUCCESS\nfi\n";
        let mut parser = BashParser::new().expect("parser");
        let analysis = analyze::analyze(&mut parser, source, Vocabulary::Exact).expect("analysis");
        let context = values::static_values(
            &analysis.legacy,
            crate::contract::legacy_text::DEFAULT_CONFIDENCE,
            "t",
        );
        let template = Template::load("skill-output-v1").expect("built-in template");
        let plan = plan_comment_mode(&analysis, source, &template, &context, None).expect("plan");
        let rewritten = apply_checked(&plan, &analysis, source, &mut parser).expect("valid");
        let fresh = parser.parse(&rewritten).expect("parse");
        assert_eq!(parser::error_count(&fresh), 0);
    }
}
