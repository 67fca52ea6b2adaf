//! The legacy-statement rules, through the library: what counts, what is data, what values carry.

use skillmod::analyze::Vocabulary;
use skillmod::analyze::{self, BashParser, LegacyKind, LegacyValue};

fn legacy(source: &str) -> Vec<(LegacyKind, usize, Option<LegacyValue>)> {
    let mut parser = BashParser::new().expect("parser");
    let analysis =
        analyze::analyze(&mut parser, source.as_bytes(), Vocabulary::Exact).expect("analysis");
    analysis
        .legacy
        .into_iter()
        .map(|s| (s.kind, s.line, s.value))
        .collect()
}

fn kinds(source: &str) -> Vec<LegacyKind> {
    legacy(source).into_iter().map(|(k, _, _)| k).collect()
}

#[test]
fn any_quoting_and_echo_flags_match() {
    // `echo -n COMPLETE` last: a line after it would continue its line, and be no line of its own.
    let src = "echo \"SUCCESS\"\necho 'SUCCESS'\necho SUCCESS\necho -e \"COMPLETE\"\necho \"SUC\"'CESS'\necho -n COMPLETE\n";
    assert_eq!(
        kinds(src),
        vec![
            LegacyKind::Success,
            LegacyKind::Success,
            LegacyKind::Success,
            LegacyKind::Complete,
            LegacyKind::Success,
            LegacyKind::Complete
        ]
    );
}

#[test]
fn only_exact_success_and_complete_match() {
    assert!(
        kinds("echo SUCCESSFUL\necho 'not SUCCESS'\necho \"$SUCCESS\"\necho COMPLETED\n")
            .is_empty()
    );
}

#[test]
fn prefixed_lines_carry_literal_or_run_time_values() {
    let found = legacy(
        "echo \"Confidence: 0.92\"\necho \"Confidence: $CONF\"\necho Created: \"$f\"\necho 'Modified: a b.txt'\n",
    );
    assert_eq!(
        found,
        vec![
            (
                LegacyKind::Confidence,
                1,
                Some(LegacyValue::Literal("0.92".into()))
            ),
            (
                LegacyKind::Confidence,
                2,
                Some(LegacyValue::RunTime("$CONF".into()))
            ),
            (
                LegacyKind::Created,
                3,
                Some(LegacyValue::RunTime("$f".into()))
            ),
            (
                LegacyKind::Modified,
                4,
                Some(LegacyValue::Literal("a b.txt".into()))
            ),
        ]
    );
}

#[test]
fn output_sent_elsewhere_is_not_legacy() {
    let src = "echo SUCCESS >&2\necho SUCCESS > log\necho SUCCESS >> log\n>&2 echo SUCCESS\necho SUCCESS 1>/dev/null\necho SUCCESS &> log\necho SUCCESS | tee log >/dev/null\necho SUCCESS | tee log | wc -l\necho SUCCESS | tee log 1>&2 2>&1\nx=$(echo SUCCESS | tee log)\necho SUCCESS >&2 | tee log\n{ echo SUCCESS; } > log\nwhile true; do echo SUCCESS; done > log\n";
    assert!(kinds(src).is_empty(), "{:?}", kinds(src));
}

#[test]
fn stderr_redirect_keeps_stdout_legacy() {
    assert_eq!(
        kinds("echo SUCCESS 2>/dev/null\n"),
        vec![LegacyKind::Success]
    );
    assert_eq!(kinds("true | echo SUCCESS\n"), vec![LegacyKind::Success]);
    // Left to right: 2 goes to stdout, then 1 to where 2 now points, stdout (bash prints it).
    assert_eq!(
        kinds("echo SUCCESS | tee log 2>&1 1>&2\n"),
        vec![LegacyKind::Success]
    );
}

#[test]
fn captured_output_is_data() {
    let src = "x=$(echo SUCCESS)\ny=`echo COMPLETE`\ndiff <(echo SUCCESS) f\n";
    assert!(kinds(src).is_empty());
}

#[test]
fn functions_whose_output_is_captured_are_data_transitively() {
    let src = "inner() { echo SUCCESS; }\nouter() { inner; }\nr=$(outer)\npiped() { echo COMPLETE; }\npiped | cat\nplain() { echo \"Created: x\"; }\nplain\n";
    assert_eq!(kinds(src), vec![LegacyKind::Created]);
}

#[test]
fn heredocs_strings_comments_and_other_commands_never_match() {
    let src = "cat <<EOF\necho SUCCESS\n$(echo COMPLETE)\nEOF\n# echo SUCCESS\nx='echo SUCCESS'\ngrep SUCCESS log\n";
    assert!(kinds(src).is_empty(), "{:?}", kinds(src));
}

#[test]
fn json_block_marks_a_script_migrated_but_a_config_heredoc_does_not() {
    let mut parser = BashParser::new().expect("parser");
    let config = "cat > cfg.json <<'EOF_JSON'\n{}\nEOF_JSON\necho SUCCESS\n";
    assert!(
        !analyze::analyze(&mut parser, config.as_bytes(), Vocabulary::Exact)
            .expect("a")
            .already_migrated
    );
    let stdout_block = "cat << 'EOF_JSON'\n{}\nEOF_JSON\n";
    assert!(
        analyze::analyze(&mut parser, stdout_block.as_bytes(), Vocabulary::Exact)
            .expect("a")
            .already_migrated
    );
}

#[test]
fn final_exit_is_only_a_last_top_level_exit() {
    let mut parser = BashParser::new().expect("parser");
    let early = "if x; then exit 1; fi\necho SUCCESS\n";
    assert_eq!(
        analyze::analyze(&mut parser, early.as_bytes(), Vocabulary::Exact)
            .expect("a")
            .final_exit,
        None
    );
    let last = "echo SUCCESS\nexit \"$rc\"\n# trailing comment\n";
    assert_eq!(
        analyze::analyze(&mut parser, last.as_bytes(), Vocabulary::Exact)
            .expect("a")
            .final_exit,
        Some(13)
    );
}

#[test]
fn shebang_selects_the_dialect() {
    use skillmod::analyze::Dialect;
    assert_eq!(Dialect::detect(b"#!/bin/sh\n"), Dialect::Posix);
    assert_eq!(Dialect::detect(b"#!/usr/bin/env dash\n"), Dialect::Posix);
    assert_eq!(Dialect::detect(b"#!/usr/bin/env bash\n"), Dialect::Bash);
    assert_eq!(Dialect::detect(b"echo hi\n"), Dialect::Bash);
    // The shells the hostile round found unselected (G09).
    assert_eq!(Dialect::detect(b"#!/bin/rbash\n"), Dialect::Bash);
    for posix in ["#!/bin/ash\n", "#!/bin/mksh\n", "#!/bin/busybox sh\n"] {
        assert_eq!(Dialect::detect(posix.as_bytes()), Dialect::Posix, "{posix}");
    }
}

fn stdout_write_lines(source: &str) -> Vec<usize> {
    let mut parser = BashParser::new().expect("parser");
    let analysis =
        analyze::analyze(&mut parser, source.as_bytes(), Vocabulary::Exact).expect("analysis");
    analysis.stdout_writes.iter().map(|w| w.line).collect()
}

#[test]
fn echo_in_a_captured_function_is_data_not_a_stdout_write() {
    // `f` holds no legacy line, but its output is captured: `--stdout-to-stderr` must not touch it.
    let src = "f() { echo hi; }\nx=$(f)\ng() { printf 'x\\n'; }\ng | wc -l\nh() { echo live; }\nh\necho SUCCESS\n";
    assert_eq!(stdout_write_lines(src), vec![5]);
}

fn legacy_in(
    source: &str,
    vocabulary: Vocabulary,
) -> Vec<(LegacyKind, usize, Option<LegacyValue>)> {
    let mut parser = BashParser::new().expect("parser");
    let analysis = analyze::analyze(&mut parser, source.as_bytes(), vocabulary).expect("analysis");
    analysis
        .legacy
        .into_iter()
        .map(|s| (s.kind, s.line, s.value))
        .collect()
}

#[test]
fn original_vocabulary_reads_colour_codes_around_markers() {
    let src = "#!/bin/bash\nGREEN='\\033[0;32m'\nNC='\\033[0m'\necho -e \"${GREEN}✓${NC} Created: $f\"\necho -e \"\\033[32mSUCCESS\\033[0m\"\necho \"$BOLD✅ Modified: a.md$NC\"\n";
    let found = legacy_in(src, Vocabulary::Original);
    assert_eq!(
        found,
        vec![
            (
                LegacyKind::Created,
                4,
                Some(LegacyValue::RunTime("$f".into()))
            ),
            (LegacyKind::Success, 5, None),
            (
                LegacyKind::Modified,
                6,
                Some(LegacyValue::Literal("a.md".into()))
            ),
        ]
    );
    // The exact vocabulary takes none of them: its markers are the whole line or its start.
    assert!(legacy_in(src, Vocabulary::Exact).is_empty());
}

#[test]
fn a_line_marked_as_failed_is_never_a_result_line() {
    let src = "#!/bin/bash\necho \"[ERROR] success\"\necho \"✗ Created: a.md\"\necho \"❌ COMPLETE\"\necho \"[FAILED] Confidence: 0.9\"\necho \"[OK] success\"\n";
    let found = legacy_in(src, Vocabulary::Original);
    assert_eq!(found, vec![(LegacyKind::Success, 6, None)]);
}

#[test]
fn echo_values_are_what_the_scripts_shell_prints() {
    // bash reads escapes only with -e; `echo -e` in dash prints "-e" itself.
    let bash = "#!/bin/bash\necho -e \"Created: a\\tb.md\"\necho \"Created: c\\td.md\"\n";
    assert_eq!(
        legacy_in(bash, Vocabulary::Exact),
        vec![
            (
                LegacyKind::Created,
                2,
                Some(LegacyValue::Literal("a\tb.md".into()))
            ),
            (
                LegacyKind::Created,
                3,
                Some(LegacyValue::Literal("c\\td.md".into()))
            ),
        ]
    );
    // dash reads the escape without -e. Its `echo -e "SUCCESS"` prints `-e SUCCESS`, but bash
    // runs sh scripts too (`bash x.sh`) and prints SUCCESS: a legacy line either way.
    let dash = "#!/bin/sh\necho \"Created: c\\td.md\"\necho -e \"SUCCESS\"\n";
    assert_eq!(
        legacy_in(dash, Vocabulary::Exact),
        vec![
            (
                LegacyKind::Created,
                2,
                Some(LegacyValue::Literal("c\td.md".into()))
            ),
            (LegacyKind::Success, 3, None)
        ]
    );
}

#[test]
fn printf_with_a_literal_format_is_legacy_line_by_line_and_other_printfs_are_not() {
    // A format reused for each value (line 5), or of several lines, is read line by line as
    // validate reads the output; two kinds in one (line 7) are no statement the runtime records.
    let src = "printf 'SUCCESS\\n'\nprintf '%s\\n' 'Created: a'\nprintf -- 'COMPLETE'\nprintf \"$fmt\" SUCCESS\nprintf 'Created: %s\\n' b c\nprintf -v x 'SUCCESS'\nprintf 'SUCCESS\\nCreated: b\\n'\nprintf 'SUCCESS' >&2\nprintf 'Created: %s\\nNote: x\\n' d\n";
    assert_eq!(
        legacy(src),
        vec![
            (LegacyKind::Success, 1, None),
            (
                LegacyKind::Created,
                2,
                Some(LegacyValue::Literal("a".into()))
            ),
            (LegacyKind::Complete, 3, None),
            (
                LegacyKind::Created,
                5,
                Some(LegacyValue::Literal("b".into()))
            ),
        ]
    );
}

#[test]
fn a_printf_precision_of_any_length_is_read() {
    // `%.100000s` cuts nothing: SUCCESS is printed (hostile review: a precision of more than four
    // digits was a note, not a legacy line); `%.3s` cuts it to no marker.
    let src = "printf '%.100000s\\n' SUCCESS\nprintf '%.3s\\n' SUCCESS\n";
    assert_eq!(legacy(src), vec![(LegacyKind::Success, 1, None)]);
}

#[test]
fn a_descriptor_written_against_its_operator_is_the_descriptor_not_an_argument() {
    let src = "echo SUCCESS 0</dev/null\necho COMPLETE 2>/dev/null\necho SUCCESS 1>/dev/null\necho \"Created: a\" 0<&0\n";
    assert_eq!(
        kinds(src),
        vec![
            LegacyKind::Success,
            LegacyKind::Complete,
            LegacyKind::Created
        ]
    );
}

#[test]
fn the_default_vocabulary_takes_whole_cased_markers_and_colour_names_only() {
    let decorated = |source: &str| -> Vec<LegacyKind> {
        let mut parser = BashParser::new().expect("parser");
        analyze::analyze(&mut parser, source.as_bytes(), Vocabulary::Decorated)
            .expect("analysis")
            .legacy
            .into_iter()
            .map(|s| s.kind)
            .collect()
    };
    // A count label is no result line: `$N` is a value, not a colour code.
    assert!(decorated("N=1\necho \"Complete: $N\"\n").is_empty());
    assert_eq!(
        decorated(
            "echo -e \"${GREEN}✓ Success${NC}\"\necho \"Created:out.md\"\necho \"  COMPLETED.\"\n"
        ),
        vec![
            LegacyKind::Success,
            LegacyKind::Created,
            LegacyKind::Complete
        ]
    );
    // "successful" in a comment is no marker: a parse error elsewhere is no SKM003 for it.
    let mut parser = BashParser::new().expect("parser");
    let src = "# 0 - Validation successful\nif [[ $line =~ \\${[A-Z_]+} ]]; then echo hi; fi\n";
    let analysis =
        analyze::analyze(&mut parser, src.as_bytes(), Vocabulary::Decorated).expect("analysis");
    assert_eq!(analysis.legacy_in_parse_error, None);
    assert!(
        Vocabulary::Decorated
            .marker_offsets(b"# successful, Successfully")
            .is_empty()
    );
}

#[test]
fn exec_that_sends_stdout_away_leaves_no_stdout_after_it() {
    let lines = |src: &str| -> Vec<usize> { legacy(src).into_iter().map(|(_, l, _)| l).collect() };
    // Before it, stdout; after `exec 1>&2` or `exec >log`, none.
    assert_eq!(lines("echo SUCCESS\nexec 1>&2\necho SUCCESS\n"), vec![1]);
    assert!(lines("exec >\"$LOG\" 2>&1\necho SUCCESS\n").is_empty());
    // Until an exec points it at a copied descriptor again (the stdout saved in 3).
    assert_eq!(
        lines("exec 3>&1 >\"$LOG\"\necho SUCCESS\nexec >&3\necho SUCCESS\n"),
        vec![4]
    );
    // A process substitution still prints: `tee` copies to the terminal.
    assert_eq!(lines("exec > >(tee -a log) 2>&1\necho SUCCESS\n"), vec![2]);
    // Only a top-level exec of no command counts.
    assert_eq!(lines("f() { exec 1>&2; }\necho SUCCESS\n"), vec![2]);
    assert_eq!(lines("exec 3>&1\necho SUCCESS\n"), vec![2]);
}

#[test]
fn an_echo_of_several_lines_is_read_line_by_line_as_validate_reads_its_output() {
    // User trial: `echo -e "Build finished\nSUCCESS"` passed check while validate read SUCCESS.
    let src = "#!/bin/bash\necho -e \"Build finished\\nSUCCESS\"\necho -e \"Created: a\\nCreated: b\"\necho -e \"Created: c\\nNote: d\"\necho -e \"Created: e\\nSUCCESS\"\n";
    assert_eq!(
        legacy(src),
        vec![
            (LegacyKind::Success, 2, None),
            (
                LegacyKind::Created,
                3,
                Some(LegacyValue::Literal("a".into()))
            ),
        ]
    );
    let printed = "Build finished\nSUCCESS\nCreated: a\nCreated: b\n";
    let outcome = skillmod::contract::check_output(
        printed,
        &skillmod::contract::ParseOptions::new(skillmod::contract::Protocol::Legacy),
        &skillmod::contract::Schema::builtin("skill-output-v1").expect("schema"),
    );
    let value = outcome.value.expect("read");
    assert_eq!(value["success"], true);
    assert_eq!(value["deliverables"], serde_json::json!(["a", "b"]));
}

#[test]
fn an_echo_of_results_of_two_kinds_is_a_note_not_a_silent_write() {
    // Retrial: `echo -e "Created: a.txt\nSUCCESS"` passed check while validate read both lines.
    let src = "#!/bin/bash\necho -e \"Created: a.txt\\nSUCCESS\"\n";
    let mut parser = BashParser::new().expect("parser");
    let analysis =
        analyze::analyze(&mut parser, src.as_bytes(), Vocabulary::Exact).expect("analysis");
    assert!(analysis.legacy.is_empty());
    assert_eq!(
        analysis
            .out_of_reach
            .iter()
            .map(|o| (o.line, o.form))
            .collect::<Vec<_>>(),
        [(2, skillmod::analyze::out_of_reach::Form::SeveralLines)]
    );
}
