//! Static analysis of a bash skill with tree-sitter-bash: legacy output statements, whether the
//! JSON block is already there, and where the main flow ends.

pub mod context;
pub mod flow;
pub mod helpers;
pub mod misreads;
pub mod out_of_reach;
pub mod parser;
pub mod prefilter;
pub mod redirects;
pub mod runtime_link;
pub mod shell;
pub mod suppress;
pub mod vocabulary;
pub mod words;

use serde::Serialize;
use tree_sitter::{Node, Tree};

pub use crate::domain::legacy::{LegacyKind, LegacyValue};
pub use parser::BashParser;
pub use shell::Dialect;
pub use vocabulary::Vocabulary;

use context::{Survey, command_name_bytes};
use parser::node_text;

/// The comment the JSON block opens with; its presence marks a migrated script.
pub(crate) const BLOCK_MARKER: &str = "# skillmod:json-output";
/// Heredoc delimiter of the JSON block (seed 000's choice).
pub(crate) const BLOCK_DELIMITER: &str = "EOF_JSON";

/// One legacy output statement: an `echo` whose printed text is a legacy result line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LegacyStatement {
    pub kind: LegacyKind,
    /// 1-based line of the statement's start.
    pub line: usize,
    /// 1-based column of the statement's start, in characters (invalid UTF-8 bytes count one each).
    pub column: usize,
    /// The statement's source text, lossily decoded.
    pub text: String,
    /// The value after the marker (`Confidence:`, `Created:`, `Modified:`), if any.
    pub value: Option<LegacyValue>,
    /// The values of the statement's further lines of the same kind (`echo -e "Created: a\nCreated:
    /// b"`), in order.
    #[serde(skip)]
    pub further_values: Vec<LegacyValue>,
    /// Byte range of the `command` node in the analyzed source.
    #[serde(skip)]
    pub start: usize,
    #[serde(skip)]
    pub end: usize,
    /// The words that name the printer (`echo`, `command echo`, `/bin/echo`): capture mode puts
    /// its recorder there.
    #[serde(skip)]
    pub printer: std::ops::Range<usize>,
    /// How the statement prints its line.
    #[serde(skip)]
    pub form: Form,
    /// Every path from it reaches `exit N`/`return N` with N ≠ 0: it reports a failure.
    #[serde(skip)]
    pub on_failure_path: bool,
    /// It prints through `exec` (`exec echo SUCCESS`, or a helper whose `echo` does): the shell
    /// ends there, so no document can follow it.
    #[serde(skip)]
    pub ends_shell: bool,
    /// A `printf` whose format ends its text without a newline (`printf 'Confidence: %s' 0.7`):
    /// what follows joins its line, so capture mode shows it with `echo -n`.
    #[serde(skip)]
    pub leaves_line_open: bool,
    /// A helper's call whose helper does not print on every call: the helper's `echo` and
    /// `printf` words, which capture mode renames so that the call records only what is printed.
    #[serde(skip)]
    pub says: Vec<std::ops::Range<usize>>,
}

impl LegacyStatement {
    /// Every value the statement prints, line by line.
    pub fn values(&self) -> impl Iterator<Item = &LegacyValue> {
        self.value.iter().chain(&self.further_values)
    }
}

/// How a legacy statement prints its line, which decides how migrate disables it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// An `echo` (`command echo`, `/bin/echo`): capture mode records in the echo's place.
    Echo,
    /// A `printf` with a literal format: capture mode records the text it prints.
    Printf,
    /// An echo piped into a `tee` that prints it (`echo "SUCCESS" | tee -a log`); the statement
    /// runs to the end of the `tee` command, whose FILE must still be written.
    Tee,
    /// A call of one of the script's functions that prints the arguments it is given
    /// (`print_success "Created: $f"`): the call stays, and capture mode records from its
    /// arguments.
    Helper(helpers::Passes),
}

/// Everything the rewrite and the reports need to know about one script.
#[derive(Debug)]
pub struct Analysis {
    /// The parse of the whole file.
    pub tree: Tree,
    pub dialect: Dialect,
    pub legacy: Vec<LegacyStatement>,
    /// The script already prints the JSON block (marker comment or an `EOF_JSON` heredoc on stdout).
    pub already_migrated: bool,
    /// Start byte of a final top-level `exit`, the place the JSON block goes before.
    pub final_exit: Option<usize>,
    /// Parse errors: ERROR/MISSING nodes, and redirections whose target is on the next line
    /// (`parser::redirects_across_lines`), which tree-sitter reads without one.
    pub parse_errors: usize,
    /// Line and column of the first parse error.
    pub first_error: Option<(usize, usize)>,
    /// Where a parse error keeps the analysis from being trusted, when a marker lies in the
    /// file: the first `echo` of a legacy line inside an error, else the first marker (a
    /// misread can swallow real statements into words or comments), or the first error when
    /// legacy statements were found (the rewrite is refused there). Never a silent pass.
    pub legacy_in_parse_error: Option<(usize, usize)>,
    /// Other statements that write to the script's stdout (echo, printf, cat): they break a
    /// JSON-only stdout.
    pub stdout_writes: Vec<StdoutWrite>,
    /// `trap … EXIT` commands, which capture mode must chain rather than let replace its trap.
    pub taken_traps: Vec<TakenTrap>,
    /// Line and column of the first stdout write that prints a JSON object of the script's own
    /// (`echo '{"ok": true}'`, `printf '{"n":%d}'`, a `cat` heredoc starting with `{`, an
    /// `EOF_JSON` block written by hand), in a script skillmod has not migrated: migrating its
    /// legacy lines would give it a second document.
    pub prints_json: Option<(usize, usize)>,
    /// A script under no contract (no legacy line, no JSON block): its writes to stdout, which
    /// are its answer to whoever runs it (`TYPE=$(bash detect.sh)`).
    pub answer: Vec<StdoutWrite>,
    /// The line of the first legacy statement in a function whose output the script captures at
    /// one call (`x=$(f)`) and prints at another (`f`): capture mode refuses it.
    pub captured_and_printed: Option<usize>,
    /// Line and column of the first legacy statement run through `exec` (`exec echo SUCCESS`):
    /// the shell ends there, so neither mode can print a document after it (both refuse).
    pub exec_legacy: Option<(usize, usize)>,
    /// Legacy-looking text in forms the analysis cannot read as output (SKM010 notes).
    pub out_of_reach: Vec<out_of_reach::OutOfReach>,
    /// What the analysis cost, for tests that bound it by structure rather than time.
    pub work: Work,
}

/// Where a parse error keeps a script from being trusted, and how it is told: check reports it
/// (SKM003) and migrate refuses the file with the same message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ParseFailure {
    /// 1-based line and column reported: a legacy line or marker in the damage, or the error.
    pub line: usize,
    pub column: usize,
    /// Where tree-sitter-bash's first error is, which is where to fix the syntax.
    pub first_error: (usize, usize),
    pub errors: usize,
    /// Legacy statements were found beside the error.
    pub legacy_found: bool,
}

impl ParseFailure {
    /// The `PARSE_ERROR` both commands give.
    pub fn refusal(&self) -> crate::error::Error {
        let (line, column) = (self.line, self.column);
        let (first_line, first_column) = self.first_error;
        let errors = match self.errors {
            1 => "1 parse error".to_string(),
            n => format!("{n} parse errors"),
        };
        let message = if self.legacy_found {
            format!(
                "line {line}:{column}: tree-sitter-bash cannot parse this script ({errors}, the first at {first_line}:{first_column}), so edits could land in the wrong place and migrate refuses it; if `bash -n` reports a syntax error there (bash 5 may still exit 0), fix it; if bash accepts it, tree-sitter-bash misreads a construct there (docs/limits.md lists the known ones): migrate the script by hand, or rewrite that construct"
            )
        } else {
            format!(
                "line {line}:{column}: a legacy marker lies in a script tree-sitter-bash cannot fully parse ({errors}, the first at {first_line}:{first_column}), so whether it is printed is unknown and migrate refuses the file; if `bash -n` reports a syntax error there (bash 5 may still exit 0), fix it; if bash accepts it, tree-sitter-bash misreads a construct there (docs/limits.md lists the known ones): check the script by hand, or rewrite that construct"
            )
        };
        crate::error::Error::new(crate::codes::PARSE_ERROR, message)
    }
}

impl Analysis {
    /// Whether success means reaching a success line: the script has a SUCCESS or COMPLETE line
    /// off its failure paths. Else (none, or legacy lines only before `exit 1`) a clean exit is
    /// success. Capture mode's runtime and `validate --run` read a run by this one rule.
    pub fn expects_success_line(&self) -> bool {
        self.legacy.iter().any(|s| {
            matches!(s.kind, LegacyKind::Success | LegacyKind::Complete) && !s.on_failure_path
        })
    }

    /// The line of the first success line a migrated script records (`__skm_rec success`,
    /// `__skm_out success`, `__skm_via success`) off its failure paths: the rewritten form of
    /// what `expects_success_line` reads, so such a script's source line may not say that a
    /// clean exit is success (`__skm_need=0`).
    pub fn recorded_success(&self, source: &[u8]) -> Option<usize> {
        memchr::memmem::find(source, b" success")?;
        let root = self.tree.root_node();
        let skipped = runtime_link::find(source).map(|r| r.range());
        let flow = flow::Flow::of(root, source);
        let mut cursor = root.walk();
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if skipped
                .as_ref()
                .is_some_and(|r| r.contains(&node.start_byte()))
            {
                continue;
            }
            if node.kind() == "command"
                && context::command_name_bytes(node, source)
                    .is_some_and(|n| matches!(n, b"__skm_rec" | b"__skm_out" | b"__skm_via"))
                && node
                    .child_by_field_name("argument")
                    .is_some_and(|a| &source[a.byte_range()] == b"success")
                && !flow::on_failure_path(&flow, node, source)
            {
                return Some(node.start_position().row + 1);
            }
            stack.extend(node.named_children(&mut cursor));
        }
        None
    }

    /// The line of a success line the script records while its runtime line says a clean exit is
    /// success (`__skm_need=0`): not what skillmod writes for it.
    pub fn contradicted_exit_claim(&self, source: &[u8]) -> Option<usize> {
        runtime_link::claims_exit(source)
            .then(|| self.recorded_success(source))
            .flatten()
    }

    /// The parse error that keeps this script from being trusted, if any.
    pub fn parse_failure(&self) -> Option<ParseFailure> {
        let (line, column) = self.legacy_in_parse_error?;
        Some(ParseFailure {
            line,
            column,
            first_error: self.first_error.unwrap_or((line, column)),
            errors: self.parse_errors,
            legacy_found: !self.legacy.is_empty(),
        })
    }

    /// Whether the script says by itself that it is sourced, not run: a `return` outside every
    /// function.
    pub fn returns_at_top_level(&self, source: &[u8]) -> bool {
        memchr::memmem::find(source, b"return").is_some()
            && flow::has_top_level_return(self.tree.root_node(), source)
    }

    /// Whether running the script reaches one of its result lines (`main "$@"` calling the
    /// function that prints it), or calls one the files it sources define (`imported`, when one
    /// of them holds legacy lines): sourced by another script, it is an entry point too. A plain
    /// top-level `return` (not an include guard's) says it is a library all the same.
    pub fn reaches_a_result_when_run(
        &self,
        source: &[u8],
        imported: &std::collections::HashSet<Vec<u8>>,
    ) -> bool {
        let root = self.tree.root_node();
        let legacy: Vec<usize> = self.legacy.iter().map(|l| l.start).collect();
        !flow::returns_unconditionally(root, source)
            && flow::reaches_a_result_when_run(root, source, &legacy, imported)
    }

    /// Whether nothing in the script says if it runs on its own or is sourced: no shebang and no
    /// top-level `return`. Only a selected script that sources it, or the user, can tell.
    pub fn role_unknown(&self, source: &[u8]) -> bool {
        !source.starts_with(b"#!") && !self.returns_at_top_level(source)
    }
}

/// The work one analysis did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Work {
    /// Nodes the survey walks entered.
    pub nodes: usize,
}

/// A non-legacy statement that writes to the script's stdout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StdoutWrite {
    pub kind: &'static str,
    pub line: usize,
    pub column: usize,
    pub text: String,
    #[serde(skip)]
    pub start: usize,
    #[serde(skip)]
    pub end: usize,
}

/// A `trap` command capture mode's runtime takes over (`__skm_trap`): one that sets or resets the
/// EXIT trap, resets a signal the runtime guards the document with (TERM, INT, HUP), or whose
/// signals are unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TakenTrap {
    pub line: usize,
    /// Byte range of the `trap` word.
    pub name_start: usize,
    pub name_end: usize,
    /// Runs in a subshell (its own EXIT trap there), so it does not touch the main shell's.
    pub in_subshell: bool,
    /// Its arguments are computed at run time, so which signals it sets is unknown.
    pub dynamic: bool,
    /// It resets TERM, INT or HUP, which the runtime must keep guarded while its document is made.
    pub resets_guarded: bool,
    /// Byte range of the whole command (`trap … EXIT`, without its redirections).
    pub command_start: usize,
    pub command_end: usize,
}

/// Analyze one script's bytes (without a BOM) with one parse of the whole file. The walks over
/// its tree only enter nodes that hold text the analysis looks for.
pub fn analyze(
    parser: &mut BashParser,
    source: &[u8],
    vocabulary: Vocabulary,
) -> crate::error::Result<Analysis> {
    let tree = parser.parse(source)?;
    Ok(examine(
        tree,
        source,
        vocabulary,
        &interesting_offsets(source, vocabulary),
        &helpers::Definitions::new(),
    ))
}

/// `analysis` read again off the same tree, with the helpers of the files the script sources
/// (`helper_definitions` of each): a call that hands one of them a result line is a legacy
/// statement too.
pub fn with_helpers(
    analysis: Analysis,
    source: &[u8],
    vocabulary: Vocabulary,
    imported: &helpers::Definitions,
) -> Analysis {
    let offsets = interesting_offsets(source, vocabulary);
    examine(analysis.tree, source, vocabulary, &offsets, imported)
}

/// The helpers a file defines (functions that print their arguments), for the scripts that
/// source it.
pub fn helper_definitions(
    parser: &mut BashParser,
    source: &[u8],
    vocabulary: Vocabulary,
) -> crate::error::Result<helpers::Definitions> {
    let tree = parser.parse(source)?;
    let offsets = interesting_offsets(source, vocabulary);
    let survey = Survey::new(&tree, source, BLOCK_MARKER.as_bytes(), &offsets);
    Ok(helpers::definitions(
        &survey,
        source,
        vocabulary,
        Dialect::of(survey.root, source),
    ))
}

/// The names of the functions a file defines at its top level (a library a script sources).
pub fn defined_functions(tree: &Tree, source: &[u8]) -> std::collections::HashSet<Vec<u8>> {
    flow::top_functions(tree.root_node(), source)
        .into_keys()
        .collect()
}

/// The functions a file (a library a script sources) defines that may print on stdout.
pub fn printing_functions(
    parser: &mut BashParser,
    source: &[u8],
) -> crate::error::Result<std::collections::HashSet<Vec<u8>>> {
    let tree = parser.parse(source)?;
    let offsets = interesting_offsets(source, Vocabulary::default());
    let survey = Survey::new(&tree, source, BLOCK_MARKER.as_bytes(), &offsets);
    Ok(survey
        .function_names()
        .filter(|name| survey.may_print(name))
        .map(<[u8]>::to_vec)
        .collect())
}

/// The calls on the script's stdout of commands it does not define whose names are in `names`
/// (functions a sourced file defines that print): writes of its stdout like its own `echo`s.
pub fn calls_printing(
    analysis: &Analysis,
    source: &[u8],
    names: &std::collections::HashSet<Vec<u8>>,
) -> Vec<StdoutWrite> {
    // The walk looks where its needles are: the names are needles here.
    let mut offsets = interesting_offsets(source, Vocabulary::default());
    offsets.extend(context::occurrences(
        source,
        names.iter().map(Vec::as_slice),
    ));
    offsets.sort_unstable();
    offsets.dedup();
    let survey = Survey::new(&analysis.tree, source, BLOCK_MARKER.as_bytes(), &offsets);
    survey
        .calls()
        .filter(|(name, site)| {
            names.contains(*name) && !survey.defines(name) && survey.reach(site).is_ok()
        })
        .map(|(_, site)| stdout_write(site.node, source))
        .collect()
}

/// Where text the analysis looks for can start (`needles` and the vocabulary's markers), sorted:
/// found once per file, shared by every walk of the survey.
fn interesting_offsets(source: &[u8], vocabulary: Vocabulary) -> Vec<usize> {
    let mut offsets = context::occurrences(source, needles().into_iter());
    offsets.extend(vocabulary.marker_offsets(source));
    offsets.sort_unstable();
    offsets.dedup();
    offsets
}

/// Text where something the analysis looks at can start (the vocabulary's markers come on top).
fn needles() -> Vec<&'static [u8]> {
    vec![
        b"echo".as_slice(),
        b"printf",
        // A line continuation may run through a name or a marker (`ec\⏎ho`, `SUCC\⏎ESS`).
        b"\\\n",
        b"cat",
        b"trap",
        b"tee",
        BLOCK_DELIMITER.as_bytes(),
        BLOCK_MARKER.as_bytes(),
        runtime_link::SOURCE_PREFIX.as_bytes(),
        runtime_link::INLINE_MARKER.as_bytes(),
        runtime_link::BLOCK_START.as_bytes(),
    ]
}

/// What one survey of a tree finds: all the analysis holds but the tree and its parse errors.
struct Found {
    legacy: Vec<LegacyStatement>,
    has_block: bool,
    stdout_writes: Vec<StdoutWrite>,
    answer: Vec<StdoutWrite>,
    prints_json: Option<(usize, usize)>,
    taken_traps: Vec<TakenTrap>,
    /// The first legacy statement a parse error swallowed.
    hidden: Option<(usize, usize)>,
    dialect: Dialect,
    out_of_reach: Vec<out_of_reach::OutOfReach>,
    captured_and_printed: Option<usize>,
    exec_legacy: Option<(usize, usize)>,
    visited: usize,
}

/// Everything the analysis reads off a tree.
fn examine(
    tree: Tree,
    source: &[u8],
    vocabulary: Vocabulary,
    offsets: &[usize],
    imported: &helpers::Definitions,
) -> Analysis {
    let found = survey_tree(&tree, source, vocabulary, offsets, imported);
    let final_exit = final_top_level_exit(tree.root_node(), source);
    let mut misread = parser::redirects_across_lines(&tree, source);
    misread.extend(parser::comments_after_escaped_blanks(&tree, source));
    misread.extend(misreads::joined_heredoc_ends(source));
    misread.sort_unstable();
    let parse_errors = parser::error_count(&tree) + misread.len();
    let first_error = [
        parser::first_error(&tree),
        misread.first().map(|&at| parser::line_column(source, at)),
    ]
    .into_iter()
    .flatten()
    .min();
    // A parse error can swallow what follows it into a word, a string or a comment, so no
    // marker in the file can be trusted to be data: the file is not judged clean. With legacy
    // statements found, the rewrite is refused at the first error (check reports the same place).
    let legacy_in_parse_error = match (parse_errors, found.legacy.is_empty()) {
        (0, _) => None,
        (_, false) => first_error,
        // A comment that ends before the first error, or a statement that does (a log helper
        // printing `[SUCCESS] $1`: new user's trial nu26), was read before any damage: bash
        // reads it as the analysis did, and the analysis found no legacy line in it.
        (_, true) => found.hidden.or_else(|| {
            let before = |n: tree_sitter::Node<'_>| {
                let end = n.end_position();
                n.kind() != "ERROR"
                    && first_error.is_some_and(|first| (end.row + 1, end.column + 1) < first)
            };
            let read_before_damage = |at: usize| {
                let root = tree.root_node();
                let Some(node) = root.descendant_for_byte_range(at, at) else {
                    return false;
                };
                // Where a heredoc's end is misread (a CR after it, hx27), its body hides code:
                // a statement holding one is not trusted.
                let statement = std::iter::successors(Some(node), |n| n.parent())
                    .find(|n| n.parent().is_some_and(|p| p.id() == root.id()))
                    .filter(|s| memchr::memmem::find(&source[s.byte_range()], b"<<").is_none());
                (node.kind() == "comment" && before(node)) || statement.is_some_and(before)
            };
            vocabulary
                .marker_offsets(source)
                .into_iter()
                .find(|&at| !read_before_damage(at))
                .map(|at| parser::line_column(source, at))
        }),
    };
    Analysis {
        first_error,
        legacy_in_parse_error,
        dialect: found.dialect,
        tree,
        legacy: found.legacy,
        already_migrated: found.has_block,
        final_exit,
        parse_errors,
        stdout_writes: found.stdout_writes,
        taken_traps: found.taken_traps,
        prints_json: found.prints_json,
        out_of_reach: found.out_of_reach,
        answer: found.answer,
        captured_and_printed: found.captured_and_printed,
        exec_legacy: found.exec_legacy,
        work: Work {
            nodes: found.visited,
        },
    }
}

/// One survey of the tree, and what it finds.
fn survey_tree(
    tree: &Tree,
    source: &[u8],
    vocabulary: Vocabulary,
    offsets: &[usize],
    imported: &helpers::Definitions,
) -> Found {
    let mut survey = Survey::new(tree, source, BLOCK_MARKER.as_bytes(), offsets);
    let runtime = runtime_link::find(source).map(|r| r.range());
    if let Some(range) = &runtime {
        for sites in [
            &mut survey.echoes,
            &mut survey.printfs,
            &mut survey.cats,
            &mut survey.traps,
        ] {
            sites.retain(|site| !range.contains(&site.node.start_byte()));
        }
    }
    let dialect = Dialect::of(survey.root, source);
    let hidden = survey
        .echoes
        .iter()
        .filter(|site| survey.reach(site) == Err(context::NotStdout::ParseError))
        .filter_map(|site| {
            legacy_statement(survey.flow(source), site.node, source, vocabulary, dialect)
        })
        .map(|s| (s.line, s.column))
        .min();
    let legacy = legacy_statements(&survey, source, vocabulary, dialect, imported);
    let own_block = survey.marker_comment || runtime.is_some();
    let has_block = own_block
        || (memchr::memmem::find(source, BLOCK_DELIMITER.as_bytes()).is_some()
            && survey
                .cats
                .iter()
                .any(|site| survey.reach(site).is_ok() && opens_json_heredoc(site.node, source)));
    let (mut stdout_writes, prints_json) =
        other_writes(&survey, source, &legacy, dialect, own_block);
    // Other stdout writes matter only in a script under the JSON contract (one with legacy
    // lines or the JSON block); anywhere else they are what the script answers.
    let answer = if legacy.is_empty() && !has_block {
        std::mem::take(&mut stdout_writes)
    } else {
        Vec::new()
    };
    let taken_traps = survey
        .traps
        .iter()
        .filter_map(|site| taken_trap(site.node, source))
        .collect();
    let out_of_reach = out_of_reach::find(&survey, tree.root_node(), source, vocabulary, &legacy);
    let captured_and_printed = survey
        .echoes
        .iter()
        .chain(&survey.printfs)
        .chain(survey.calls().map(|(_, site)| site))
        .filter(|site| survey.reach(site).is_ok() && survey.in_mixed_function(site))
        .filter(|site| legacy.iter().any(|l| l.start == site.node.start_byte()))
        .map(|site| site.node.start_position().row + 1)
        .min();
    let exec_legacy = through_exec(&legacy);
    Found {
        legacy,
        has_block,
        stdout_writes,
        answer,
        prints_json,
        taken_traps,
        hidden,
        dialect,
        out_of_reach,
        captured_and_printed,
        exec_legacy,
        visited: survey.visited,
    }
}

/// The first legacy statement that prints through `exec`, which replaces the shell. One piped
/// into `tee` is none: `exec` replaces only the pipeline's own process.
fn through_exec(legacy: &[LegacyStatement]) -> Option<(usize, usize)> {
    legacy
        .iter()
        .filter(|l| l.ends_shell && l.form != Form::Tee)
        .map(|l| (l.line, l.column))
        .min()
}

/// The legacy statements that reach stdout, sorted by start: echoes, `printf`s with a literal
/// format, and echoes piped into a `tee` that prints them.
fn legacy_statements(
    survey: &Survey<'_, '_>,
    source: &[u8],
    vocabulary: Vocabulary,
    dialect: Dialect,
    imported: &helpers::Definitions,
) -> Vec<LegacyStatement> {
    let mut legacy: Vec<LegacyStatement> = survey
        .echoes
        .iter()
        .chain(&survey.printfs)
        .filter(|site| survey.reach(site).is_ok())
        .filter_map(|site| {
            legacy_statement(survey.flow(source), site.node, source, vocabulary, dialect)
        })
        .collect();
    legacy.extend(survey.echoes.iter().filter_map(|site| {
        let tee = survey.tee_after(site, source)?;
        let mut statement =
            legacy_statement(survey.flow(source), site.node, source, vocabulary, dialect)?;
        statement.end = tee.end_byte();
        statement.text =
            String::from_utf8_lossy(&one_line(&source[statement.start..statement.end]))
                .into_owned();
        statement.form = Form::Tee;
        Some(statement)
    }));
    legacy.extend(helpers::calls(
        survey, source, vocabulary, dialect, imported,
    ));
    legacy.sort_by_key(|s| s.start);
    legacy
}

/// The writes that reach stdout and are no legacy statement, sorted, and where the script prints
/// a JSON document of its own (a hand-written `EOF_JSON` heredoc, or writes that print a JSON
/// object: those are no other output). skillmod's own block (`own_block`) is no such document.
fn other_writes(
    survey: &Survey<'_, '_>,
    source: &[u8],
    legacy: &[LegacyStatement],
    dialect: Dialect,
    own_block: bool,
) -> (Vec<StdoutWrite>, Option<(usize, usize)>) {
    let writers = || {
        survey
            .echoes
            .iter()
            .chain(&survey.printfs)
            .chain(&survey.cats)
    };
    let mut stdout_writes: Vec<StdoutWrite> = writers()
        .filter(|site| survey.reach(site).is_ok())
        .filter(|site| {
            // `legacy` is sorted by start: one search per site, not a scan (40,000 legacy
            // lines made this quadratic).
            legacy
                .binary_search_by_key(&site.node.start_byte(), |l| l.start)
                .is_err()
        })
        .filter(|site| !opens_json_heredoc(site.node, source))
        .map(|site| stdout_write(site.node, source))
        .collect();
    stdout_writes.sort_by_key(|w| w.start);
    if own_block {
        return (stdout_writes, None);
    }
    let heredoc = survey
        .cats
        .iter()
        .find(|site| survey.reach(site).is_ok() && opens_json_heredoc(site.node, source))
        .map(|site| stdout_write(site.node, source))
        .map(|w| (w.line, w.column));
    // Only the writes found above to reach stdout can be the document.
    let writes: std::collections::HashSet<usize> = stdout_writes.iter().map(|w| w.start).collect();
    let json_writes: std::collections::HashSet<usize> = writers()
        .filter(|site| writes.contains(&site.node.start_byte()))
        .filter(|site| prints_json_object(site.node, source, dialect))
        .map(|site| site.node.start_byte())
        .collect();
    let prints_json = heredoc.or_else(|| {
        stdout_writes
            .iter()
            .find(|w| json_writes.contains(&w.start))
            .map(|w| (w.line, w.column))
    });
    stdout_writes.retain(|w| !json_writes.contains(&w.start));
    (stdout_writes, prints_json)
}

/// A legacy statement when the echo prints a legacy line.
fn legacy_statement<'t>(
    flow: &flow::Flow<'t>,
    command: Node<'t>,
    source: &[u8],
    vocabulary: Vocabulary,
    dialect: Dialect,
) -> Option<LegacyStatement> {
    let invocation = context::invocation(command, source)?;
    let (printed, form) = match invocation.name.as_str() {
        "printf" => (
            words::printf_output(command, source, dialect)?,
            Form::Printf,
        ),
        _ => (words::echo_output(command, source, dialect), Form::Echo),
    };
    // A sh script is run by bash too (`bash x.sh`, and /bin/sh on many systems), whose echo
    // takes `-e` where dash's prints it: a result line either way is a legacy line (the runtime
    // records it only where the shell's echo took the flag).
    let (kind, values) = vocabulary.classify_text(&printed).or_else(|| {
        let flagged = || {
            invocation
                .arguments(command, source)
                .first()
                .is_some_and(|a| source[a.byte_range()].starts_with(b"-"))
        };
        (form == Form::Echo && dialect == Dialect::Posix && flagged())
            .then(|| vocabulary.classify_text(&words::echo_output(command, source, Dialect::Bash)))
            .flatten()
    })?;
    let mut values = values.into_iter();
    // The end of a line an `echo -n` began is no line of its own (validate reads it whole).
    if flow::continues_line(flow, command, source) {
        return None;
    }
    // From the command's name (after any `VAR=value` prefix) to the word naming the utility.
    let printer = command.child_by_field_name("name")?.start_byte()..invocation.word.end_byte();
    let position = command.start_position();
    // `echo 2>/dev/null SUCCESS`: the statement runs to the end of the words bash echoes; in
    // `echo SUCCESS {fd}>&1`, to the last word before `{fd}`, which belongs to the redirection.
    let end = match words::swallowed_arguments(command, source).last() {
        Some(word) => word.end_byte().max(command.end_byte()),
        None => descriptor_words_start(command, source).unwrap_or(command.end_byte()),
    };
    let bytes = &source[command.start_byte()..end];
    Some(LegacyStatement {
        kind,
        line: position.row + 1,
        column: char_column(source, command.start_byte(), position.column),
        text: String::from_utf8_lossy(&one_line(bytes)).into_owned(),
        value: values.next(),
        further_values: values.collect(),
        start: command.start_byte(),
        end,
        printer,
        form,
        on_failure_path: flow::on_failure_path(flow, command, source),
        ends_shell: invocation.replaces_shell,
        leaves_line_open: form == Form::Printf && flow::leaves_line_open(flow, command, source),
        says: Vec::new(),
    })
}

/// The end of the command's last word when the words after it name redirections' descriptors
/// (`{fd}`, see `context::names_a_descriptor`).
fn descriptor_words_start(command: Node<'_>, source: &[u8]) -> Option<usize> {
    let mut cursor = command.walk();
    let words: Vec<Node<'_>> = command.children(&mut cursor).collect();
    let trailing = words
        .iter()
        .rev()
        .take_while(|w| context::names_a_descriptor(**w, source))
        .count();
    (trailing > 0)
        .then(|| words.len().checked_sub(trailing + 1))
        .flatten()
        .map(|last| words[last].end_byte())
}

fn stdout_write(command: Node<'_>, source: &[u8]) -> StdoutWrite {
    let position = command.start_position();
    StdoutWrite {
        kind: "stdout_write",
        line: position.row + 1,
        column: char_column(source, command.start_byte(), position.column),
        text: String::from_utf8_lossy(&one_line(parser::node_bytes(command, source))).into_owned(),
        start: command.start_byte(),
        end: command.end_byte(),
    }
}

/// A `trap` command that sets (or resets) the EXIT trap or resets a guarded signal, or whose
/// signals are unknown. The action
/// may be computed at run time (`trap "rm -f $TMP" EXIT`); only a signal list that is, or an
/// unquoted action that word splitting could turn into several words, makes it dynamic.
fn taken_trap(command: Node<'_>, source: &[u8]) -> Option<TakenTrap> {
    let name = command.child_by_field_name("name")?;
    // `eval "trap …"`: which signals it sets is known only when it runs.
    let through_eval = &source[name.byte_range()] == b"eval";
    let mut cursor = command.walk();
    // Each argument: its literal value, if known now, and whether word splitting may cut it.
    let mut args: Vec<TrapArg> = command
        .children_by_field_name("argument", &mut cursor)
        .map(|a| (words::word_value(a, source).as_literal(), splits(a)))
        .collect();
    match args.first().and_then(|(text, _)| text.as_deref()) {
        Some("-p" | "-l") => return None,
        Some("--") => {
            args.remove(0);
        }
        _ => {}
    }
    let (action, signals): (Option<&TrapArg>, &[TrapArg]) = match args.as_slice() {
        [] => return None,
        // One argument is a signal to reset.
        [only] => (None, std::slice::from_ref(only)),
        [first, rest @ ..] => (Some(first), rest),
    };
    let dynamic = through_eval
        || signals.iter().any(|(text, _)| text.is_none())
        || action.is_some_and(|(text, split)| text.is_none() && *split);
    let sets_exit = signals.iter().any(|(text, _)| {
        text.as_deref()
            .is_some_and(|s| matches!(s, "EXIT" | "exit" | "0" | "SIGEXIT"))
    });
    // A cleanup's `trap - TERM` before `kill 0` would end the shell before the document. Only
    // such a reset is taken over: an action stays with `trap`, where ShellCheck reads it as code
    // (as a function's argument its variables would look unused, SC2034).
    let resets = action.is_none_or(|(text, _)| text.as_deref() == Some("-"));
    let resets_guarded = resets
        && signals.iter().any(|(text, _)| {
            text.as_deref().is_some_and(|s| {
                matches!(
                    s.to_ascii_uppercase().trim_start_matches("SIG"),
                    "TERM" | "INT" | "HUP" | "15" | "2" | "1"
                )
            })
        });
    if !sets_exit && !resets_guarded && !dynamic {
        return None;
    }
    let mut in_subshell = false;
    let mut node = command;
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "subshell" | "command_substitution" | "process_substitution" => in_subshell = true,
            "pipeline" if parent.named_child_count() > 1 => in_subshell = true,
            _ => {}
        }
        node = parent;
    }
    Some(TakenTrap {
        line: command.start_position().row + 1,
        name_start: name.start_byte(),
        name_end: name.end_byte(),
        in_subshell,
        dynamic,
        resets_guarded,
        command_start: command.start_byte(),
        command_end: command.end_byte(),
    })
}

type TrapArg = (Option<String>, bool);

/// True when the word holds an unquoted expansion, which word splitting may cut into several.
fn splits(word: Node<'_>) -> bool {
    match word.kind() {
        "simple_expansion" | "expansion" | "command_substitution" | "arithmetic_expansion" => true,
        "concatenation" => {
            let mut cursor = word.walk();
            word.named_children(&mut cursor).any(splits)
        }
        _ => false,
    }
}

/// The statement's text on one line: backslash continuations joined, other line breaks as `\n`.
pub(crate) fn one_line(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let continuation = if rest.starts_with(b"\\\n") {
            2
        } else if rest.starts_with(b"\\\r\n") {
            3
        } else {
            0
        };
        if continuation > 0 {
            // `echo SUCC\⏎ESS` is one word to bash: joined without a blank.
            let blank = |b: Option<&u8>| matches!(b, Some(b' ' | b'\t'));
            let glued = !blank(out.last()) && !blank(text.get(i + continuation));
            i += continuation;
            while i < text.len() && matches!(text[i], b' ' | b'\t') {
                i += 1;
            }
            if !glued && !out.ends_with(b" ") {
                out.push(b' ');
            }
        } else if rest.starts_with(b"\r\n") || rest.starts_with(b"\n") {
            out.extend(b"\\n");
            i += if rest[0] == b'\r' { 2 } else { 1 };
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// 1-based character column of byte `start`, which is `byte_column` bytes into its line.
fn char_column(source: &[u8], start: usize, byte_column: usize) -> usize {
    String::from_utf8_lossy(&source[start - byte_column..start])
        .chars()
        .count()
        + 1
}

/// `cat` with a `<<'EOF_JSON'` heredoc (any quoting) and no redirect of its own output.
fn opens_json_heredoc(cat: Node<'_>, source: &[u8]) -> bool {
    let Some(parent) = cat.parent().filter(|p| p.kind() == "redirected_statement") else {
        return false;
    };
    let mut cursor = parent.walk();
    parent
        .children_by_field_name("redirect", &mut cursor)
        .any(|r| {
            r.kind() == "heredoc_redirect"
                && r.named_child(0).is_some_and(|start| {
                    start.kind() == "heredoc_start"
                        && node_text(start, source).trim_matches(['\'', '"', '\\', '-'])
                            == BLOCK_DELIMITER
                })
                && !redirects::redirects_stdout(r, source)
        })
}

/// Whether an echo, printf or cat prints text that opens a JSON object: `{` then a quoted key,
/// `}` or nothing more on the line (a document printed line by line).
fn prints_json_object(command: Node<'_>, source: &[u8], dialect: Dialect) -> bool {
    let opens_object = |text: &str| {
        text.trim_start().strip_prefix('{').is_some_and(|rest| {
            let rest = rest.trim_start_matches([' ', '\t']);
            rest.is_empty() || rest.starts_with(['"', '}', '\n'])
        })
    };
    // Cheap first: the first word that is not a flag must open with `{` (after its quote), so
    // the printed text is worked out only for candidates (nested `$(echo …)` made this
    // quadratic otherwise).
    let Some(invocation) = context::invocation(command, source) else {
        return false;
    };
    let arguments = invocation.arguments(command, source);
    let opens_with_brace = || {
        arguments
            .iter()
            .map(|arg| &source[arg.start_byte()..arg.end_byte().min(arg.start_byte() + 3)])
            .find(|head| !head.starts_with(b"-"))
            .is_some_and(|head| {
                let head = head.strip_prefix(b"$").unwrap_or(head);
                let head = head
                    .strip_prefix(b"\"")
                    .or_else(|| head.strip_prefix(b"'"))
                    .unwrap_or(head);
                head.starts_with(b"{")
            })
    };
    match invocation.name.as_str() {
        "echo" | "printf" if !opens_with_brace() => false,
        "echo" => {
            let printed = words::echo_output(command, source, dialect);
            let prefix = printed.literal_prefix();
            opens_object(prefix) && (prefix.trim() != "{" || printed.segments.len() == 1)
        }
        "printf" => {
            let format = arguments
                .iter()
                .map(|arg| words::word_value(*arg, source))
                .find(|v| !v.literal_prefix().starts_with('-'));
            format.is_some_and(|f| opens_object(&f.literal_prefix().replace("\\n", "\n")))
        }
        "cat" => heredoc_body(command, source).is_some_and(|body| opens_object(&body)),
        _ => false,
    }
}

/// The text of the heredoc a command reads, if it reads one.
fn heredoc_body(command: Node<'_>, source: &[u8]) -> Option<String> {
    let parent = command
        .parent()
        .filter(|p| p.kind() == "redirected_statement")?;
    let mut cursor = parent.walk();
    let redirect = parent
        .children_by_field_name("redirect", &mut cursor)
        .find(|r| r.kind() == "heredoc_redirect")?;
    let mut inner = redirect.walk();
    let body = redirect
        .named_children(&mut inner)
        .find(|n| n.kind() == "heredoc_body")?;
    Some(node_text(body, source))
}

/// The start byte of the last top-level statement when it is an `exit` command.
fn final_top_level_exit(root: Node<'_>, source: &[u8]) -> Option<usize> {
    let mut cursor = root.walk();
    let last = root
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .last()?;
    (last.kind() == "command" && command_name_bytes(last, source) == Some(b"exit"))
        .then(|| last.start_byte())
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn continuation_lines_join_into_one_comment_line() {
        assert_eq!(
            one_line(b"echo \\\n    \"SUCCESS\""),
            b"echo \"SUCCESS\"".to_vec()
        );
        assert_eq!(
            one_line(b"echo \"Created: a\nb\""),
            b"echo \"Created: a\\nb\"".to_vec()
        );
        assert_eq!(one_line(b"echo \\\r\n  SUCCESS"), b"echo SUCCESS".to_vec());
    }
}
