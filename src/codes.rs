//! The catalogue of every UPPER_SNAKE_CASE code skillmod prints (errors, per-file refusals,
//! notes, check reasons, validate errors) and the codes its capture runtime writes into a skill's
//! JSON document. Each is a typed constant (`codes::PARSE_ERROR`): the code, its area and what it
//! means, written once; `docs/codes.md` is rendered from them (`report::codes_doc`).

/// Where a code comes from; one section of `docs/codes.md` each, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Area {
    Usage,
    Settings,
    Files,
    Analysis,
    Migrate,
    Runtime,
    Document,
    Restore,
    Git,
    Validate,
    Internal,
}

impl Area {
    /// Every area, in the order of the document.
    pub const ALL: [Area; 11] = [
        Area::Usage,
        Area::Settings,
        Area::Files,
        Area::Analysis,
        Area::Migrate,
        Area::Runtime,
        Area::Document,
        Area::Restore,
        Area::Git,
        Area::Validate,
        Area::Internal,
    ];

    /// The heading of the area's section in `docs/codes.md`.
    pub fn title(self) -> &'static str {
        match self {
            Area::Usage => "Command line",
            Area::Settings => "Settings files and templates",
            Area::Files => "Writing files and output",
            Area::Analysis => "Reading scripts (migrate and check)",
            Area::Migrate => "migrate: refusals and notes",
            Area::Runtime => "The capture runtime file",
            Area::Document => "In a migrated skill's JSON document",
            Area::Restore => "Backups and restore",
            Area::Git => "Git",
            Area::Validate => "validate",
            Area::Internal => "Internal errors",
        }
    }
}

/// One code: where it belongs, and what it means (when it happens, what to do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    pub code: &'static str,
    pub area: Area,
    pub meaning: &'static str,
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code)
    }
}

/// A code is written as its name in every JSON report.
impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code)
    }
}

/// Read back (check's cache) by name: a name the catalogue does not hold is an error.
impl<'de> serde::Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        CODES
            .iter()
            .find(|c| c.code == name)
            .copied()
            .ok_or_else(|| serde::de::Error::custom(format!("unknown code {name}")))
    }
}

/// Declares each code once: a constant named as the code (so a code that is not catalogued does
/// not compile), and `CODES`, every one in the order written (sorted by area, then by code).
macro_rules! catalogue {
    ($($name:ident: $area:ident, $meaning:literal;)*) => {
        $(
            #[doc = $meaning]
            pub const $name: Code = Code {
                code: stringify!($name),
                area: Area::$area,
                meaning: $meaning,
            };
        )*
        /// Every code, sorted by area, then by code.
        pub const CODES: &[Code] = &[$($name),*];
    };
}

catalogue! {
    // Usage
    INVALID_ARGUMENT: Usage, "A flag's value is out of range or the flags do not fit together: `--jobs 0`, a default confidence outside 0..1, `--stdin-filename` without `check -`, a `restore --since` that is neither a run id nor a UTC date, a `validate --cwd` that is not a folder. Fix the flag as the message says.";
    INVALID_GLOB: Usage, "An `--include`/`--exclude` pattern, or a settings file's `include`/`exclude`, is not a valid glob; the message says where it came from. Fix the pattern.";
    NOTHING_CHECKED: Usage, "Paths were named but no script was found in them, or every script found was skipped (the reasons are printed above); without named paths this is only a warning. skillmod looks for files named `execute.sh`: add `--include '*.sh'` (or another glob) for other names.";
    NO_INPUT: Usage, "`validate` was given nothing to read. Pass files (or `-` for stdin), `--jsonl`, or `--run SCRIPT`.";
    NO_PATHS: Usage, "No path was given, and no `--changed-since` or `--staged` to search the work tree. Pass files or folders, `--skill-dir DIR` or `--skill-path FILE`.";
    PATH_NOT_FOUND: Usage, "A path on the command line does not exist, or a folder to search is not a folder. Pass an existing file or folder.";
    RULE_NOT_IGNORABLE: Usage, "SKM003 was named among the rules to ignore: an unreadable file, or a parse error that may hide a legacy line, is never a pass. Fix the file, or use `--exit-zero` to exit 0 with the error still reported.";
    UNKNOWN_COMMAND: Usage, "`skillmod man COMMAND` names no command. Use one of the commands the message lists.";
    UNKNOWN_RULE: Usage, "`skillmod rule CODE`, `--select` or `--ignore` names no rule, or an empty code. Use the codes SKM001–SKM008 or a prefix of them (`skillmod rule --all` explains them).";
    // Settings
    CONFIG_INVALID: Settings, "A settings file (`skillmod.toml`) is not UTF-8, is not valid TOML, has an unknown key, or a `default-confidence` outside 0..1; the message gives the line and column. Fix the file, or run with `--isolated` to ignore it.";
    CONFIG_NOT_FOUND: Settings, "`--config` names a file that does not exist. Pass the path of a `skillmod.toml`.";
    CONFIG_UNREADABLE: Settings, "A settings file cannot be read (permissions, an I/O error). Fix or remove it, or run with `--isolated`.";
    CONFIG_UNSAFE: Settings, "A settings file is not a regular file (a FIFO, a device, a folder), is over the size limit, or, found in a repository, is a symlink to a file outside it; under `check --staged`, it is staged as a symlink. Remove or replace it, or run with `--isolated`.";
    NO_SETTINGS_FILE: Settings, "migrate read with a `--vocabulary` no settings file records, and no settings file governs the scripts: nothing is written (migrate never creates a settings file). Add the line the report gives (`vocabulary = \"…\"`) to a `skillmod.toml` at the repository root (outside git, the folder you named), so check reads later commits the same way.";
    SETTINGS_DIRTY: Settings, "migrate would write the run's `--vocabulary` into a settings file, but git does not track it or it has staged or unstaged changes: nothing is written. Commit it and run migrate again, add the line the report gives yourself, or pass `--allow-dirty`.";
    SETTINGS_IGNORED: Settings, "migrate ran with `--isolated` and a `--vocabulary` other than the default: no settings file was read, so none is written. Give check the same `--vocabulary`, or put the line the report gives in the settings file check reads.";
    SETTINGS_NOT_REGULAR: Settings, "migrate would write the run's `--vocabulary` into a settings file, but it is a symlink (its target may serve other projects), not a regular file, or cannot be read: nothing is written. Add the line the report gives to the file yourself.";
    SETTINGS_OUTSIDE_ROOT: Settings, "migrate would write the run's `--vocabulary` into the settings file `--config` names, but it lies outside the project root of the scripts (or in its `.git` or `.skillmod` folder), where no backup of the run could go: nothing is written. Add the line the report gives to it yourself.";
    SETTINGS_UNPARSABLE: Settings, "migrate would write the run's `--vocabulary` into a settings file, but the file cannot be edited safely (not UTF-8, not TOML a minimal edit can keep, or it would not read back as asked): nothing is written. Add the line the report gives to the file yourself.";
    TEMPLATE_INVALID: Settings, "A template does not compile (minijinja's reason follows). Fix the template's syntax; for the capture runtime's built-in template it is a bug: please report it.";
    TEMPLATE_NAME_UNSAFE: Settings, "A template file's name holds a character that could break out of the shell comment or quoted word it is written into. Rename the file (letters, digits, `._-/+@:` and spaces).";
    TEMPLATE_NOT_FOUND: Settings, "`--template`, a settings file's `template` or `skillmod templates NAME` names neither a built-in template nor an existing file. Use a built-in name (`skillmod templates` lists them) or a path to a `.j2` file.";
    TEMPLATE_RENDER_FAILED: Settings, "A template failed to render for a script, or rendered more than the size limit for a JSON block. Fix the template; for the capture runtime's built-in template it is a bug: please report it.";
    TEMPLATE_UNREADABLE: Settings, "A template file is not a regular file, is over the size limit, cannot be read, or is not UTF-8 text. Use a regular UTF-8 `.j2` file.";
    TEMPLATE_UNSAFE: Settings, "A settings file's `template` is not a relative path without `..`, resolves outside the repository or into `.git`/`.skillmod`; or a template rendered a line `EOF_JSON`, which would end the heredoc early. Name a built-in or a file inside the repository, and keep `EOF_JSON` lines out of the output.";
    // Files
    BROKEN_PIPE: Files, "The reader of skillmod's output went away (`skillmod check` piped into `head`). Never printed: skillmod stops quietly with status 0, as a shell pipeline expects.";
    FILE_CHANGED_DURING_RUN: Files, "A file changed between skillmod reading it and replacing it; it was left as it is now. Run again.";
    IGNORE_FILE_UNSAFE: Files, "A `.gitignore`, `.ignore` or `.git/info/exclude` the walk would read is not a regular file (a FIFO, a device, or a symlink to anything but a regular file in the repository: it may lead to `/dev/zero` or a FIFO), is over 256 KiB, or takes the walk's ignore files past 8 MiB in all: reading it could exhaust memory or never end, so skillmod stops. Make it a regular file of that size, or run with `--no-ignore`.";
    IO_ERROR: Files, "skillmod could not write its own output (other than to a closed pipe), read the working folder, encode a report or render the man page. Check where the output goes (disk full, permissions) and run again.";
    OUTSIDE_ROOT: Files, "The file's real path (through a symlinked file or folder) lies outside its project root, or in its `.git` or `.skillmod` folder: check does not read it and migrate writes nothing there; the message names the target. A selected script reached this way is never a pass (SKM004 as an error when it is named or called execute.sh, else a warning). Point the link inside the repository, or check the target in its own project.";
    OWNER_NOT_KEPT: Files, "The file belongs to a user or group this process cannot give the rewritten file, so nothing was written. Run as that user.";
    STATE_DIR_UNSAFE: Files, "`.skillmod` (or its `cache` folder) is a symlink or not a plain folder, or cannot be inspected; skillmod keeps its state only in a plain folder (check then runs without a cache). Remove it (it may have come with the repository) and run again.";
    WRITE_FAILED: Files, "Replacing a file failed: creating, writing or syncing the temporary file beside it, setting its mode, renaming it into place, or syncing its folder (the message names the step). Check permissions and free space, and run again.";
    // Analysis
    BINARY_FILE: Analysis, "The file holds NUL bytes, so it could not be judged as a shell script: SKM004 as an error when it is named or called execute.sh, else a warning. Remove the NUL bytes, or exclude it.";
    EXCLUDED_BY_SETTINGS: Analysis, "A settings file's `exclude` leaves out a file named `execute.sh`, a skill's entry point. Settings come with the repository, so they cannot turn it into a pass: check reports SKM004 as an error (only `--exit-zero` hides it), and migrate fails the file, unread. Take it out of `exclude`, or leave it out with the `--exclude` flag, which is yours.";
    FILE_TOO_LARGE: Analysis, "The script is over the size limit, so it could not be judged: check reports SKM004 as an error when it is named or called execute.sh (migrate fails it), else as a warning (migrate skips it); never a pass. Raise the limit with `--max-size`. A large file that is no shell script by name or first line is `NOT_SHELL` instead.";
    NOT_A_FILE: Analysis, "The path (or the target of its symlink) is not a regular file (a FIFO, a socket, a device, a folder), so it could not be judged: SKM004 as an error when it is named or called execute.sh, else a warning. Put the script there, or exclude the path.";
    NOT_SHELL: Analysis, "The file has no sh/bash/dash/ksh shebang, no `.sh`/`.bash` name, and no selected script sources it, so it is left alone (SKM004 in check). Give it a shebang if it is a shell script.";
    PARSE_ERROR: Analysis, "migrate and check: tree-sitter-bash finds a parse error in a script with legacy lines or markers (a redirection whose target is on the next line counts as one), so edits could land in the wrong place (SKM003 in check, the same message); fix the syntax where the message says the first error is, or migrate it by hand. validate: the output's JSON is malformed, `<<<FINAL_RESULT>>>` has no end marker, or strict mode found text outside the document's block or markers.";
    READ_FAILED: Analysis, "The file cannot be inspected or read (permissions, an I/O error); check reports it as SKM003. Fix its permissions, or exclude it.";
    SYMLINK: Analysis, "The path is a symbolic link that was not followed (it changed while skillmod ran, or a reader that never follows links met it). A selected symlink is otherwise judged at its target inside the project root (`SYMLINK_FOLLOWED`), or refused with `OUTSIDE_ROOT`, `SYMLINK_BROKEN` or `NOT_A_FILE`.";
    SYMLINK_BROKEN: Analysis, "A selected symlink leads nowhere: its target does not exist (on disk, or in the index with `--staged`), or the links loop. It could not be judged: SKM004 as an error when it is named or called execute.sh, else a warning; the message names the target. Fix or remove the link.";
    UNREADABLE_FOLDER: Analysis, "A folder cannot be read, so the scripts in it were not checked (SKM003 in check). Fix its permissions, or exclude it.";
    // Migrate
    BLOCK_UNREACHABLE: Migrate, "Comment mode: the script's last command always exits, so a JSON block after it would never run. Migrate with `--mode capture`, which prints the JSON on every exit path.";
    CAPTURED_AND_PRINTED: Migrate, "Capture mode: a legacy line sits in a function the script calls both where its output reaches stdout and where it is captured (`x=$(f)`, a pipe), so recording it would change the captured value (SKM008 in check). Give the captured call a function of its own, or migrate with `--mode comment`.";
    DESCRIPTOR_CLASH: Migrate, "Capture mode: the script redirects file descriptor 8, where the runtime keeps the real stdout for the document (SKM008 in check). Use another descriptor, or migrate with `--keep-stdout` or `--mode comment`.";
    DIRTY_FILE: Migrate, "The file has uncommitted changes (staged, unstaged or untracked), so it is not rewritten. Commit or stash them first, or pass `--allow-dirty`.";
    EXEC_REPLACES_SHELL: Migrate, "A legacy line is printed by `exec echo …` (or `exec printf …`): the command replaces the shell, so nothing after it runs, not capture mode's EXIT trap that prints the document, nor comment mode's block, and a `:` in its place would let the rest of the script run (SKM008 in check, both modes). In capture mode, any `exec` that runs a command in the script's shell (`exec bash \"$0\"`) is refused too: the document would never be printed, and the command's output would go to stderr. Print the line or run the command without `exec` and end the script with `exit` after it, then migrate again.";
    HARD_LINK: Migrate, "The file has more than one hard link; replacing it would split them (the other names would keep the old script). Migrate a copy, or break the links first.";
    INVALID_SUPPRESSION: Migrate, "A note: a `# skillmod: ignore[…]` comment names no rule or an unknown rule, or is not closed, so it suppresses nothing (SKM006 in check). Name codes such as `ignore[SKM001]`, or drop the brackets.";
    LIBRARY_UNHOSTED: Migrate, "Capture mode: the script returns at top level, so it is a library, but no selected script sources it through a path skillmod follows (a literal one, `. \"$(dirname \"$0\")/lib.sh\"`): migrated, its legacy lines would record into the runtime of a script that may have none, and print nothing (SKM008 in check). Select the script that sources it, with the library's path written literally in its `source` line, or migrate with `--mode comment`.";
    NAME_CLASH: Migrate, "Capture mode: the script uses the name prefix `__skm_`, which the runtime reserves (SKM008 in check). Rename those names, or migrate with `--mode comment`.";
    NOTHING_TO_CHANGE: Migrate, "A note: the rewrite is byte for byte the file as it is, so nothing was written, backed up or committed: a library already in its migrated form under `--force` (status `already_migrated`), or a library with no legacy line of its own, which gets no runtime (status `no_legacy`: it was never migrated). Nothing to do.";
    NO_SHEBANG: Migrate, "Capture mode: the script has no shebang, no selected script sources it, and it does not return at top level, so it may be a script run as `bash FILE` or a library sourced from elsewhere; it is left as it is (SKM008 in check). Taken as a library, its result lines would print nothing when it runs on its own. Give it a shebang if it runs on its own, select the script that sources it if it is a library, or name it with `--skill-path FILE` to migrate it as a script (`SHEBANG_ADDED`).";
    OUT_OF_REACH: Migrate, "A note: the script has legacy-looking text in a form migrate cannot record (a heredoc printed by `cat`, a computed `printf`, a variable, a `trap` action, a helper defined in another file, a write to a descriptor opened earlier such as `>&3`), so the JSON document will not hold what it prints there; check shows the same places as SKM010 with `-v`. Print each result line with its own literal `echo`, or record it with the runtime's functions (`skillmod_created PATH`).";
    PASSED_ON: Migrate, "Another selected script of the skill runs the script plainly (`bash \"$DIR/scripts/gen.sh\"`), so its stdout passes on into that script's output: migrated, it would print a JSON document of its own there, a second one or one the caller's document does not hold (refused in both modes; SKM008 in check). Report its results from the caller (have the caller print them, or record them with the runtime's functions such as `skillmod_created`), or suppress its legacy lines with `# skillmod: ignore[SKM001]`.";
    PRINTS_JSON: Migrate, "The script already prints a JSON document of its own on stdout, so migrating would print a second one (SKM008 in check). Report through that document and drop the legacy lines, or suppress them with `# skillmod: ignore[SKM001]`.";
    READ_ONLY: Migrate, "The file is read-only, so it is not rewritten. Pass `--force` to migrate it anyway (its mode is kept).";
    REWRITE_PARSE_ERROR: Migrate, "The rewritten script would have more parse errors than the original, so nothing was written. Migrate it by hand, and please report the script.";
    REWRITE_SHELL_SYNTAX: Migrate, "The shell's own syntax check (`bash -n`, `sh -n`, …) accepts the script but rejects the rewrite, so nothing was written. Migrate it by hand, and please report the script.";
    SHEBANG_ADDED: Migrate, "A note: the script has no shebang and was named with `--skill-path`, which takes it as a script on purpose: migrate writes `#!/usr/bin/env bash` as its first line and the runtime line after it. Nothing to do.";
    SOURCED_LIBRARY: Migrate, "A note: the script is sourced by another selected script, or returns at top level, so it is migrated as a library: no runtime or EXIT trap of its own, its legacy lines record into the runtime of the script that sources it. Nothing to do if it is a library.";
    SOURCED_SCRIPT: Migrate, "A note: the script is sourced by another selected script (a test harness, a second entry point) and runs on its own too (a shebang, and running it reaches a result line, such as `main \"$@\"` calling the function that prints it): its legacy lines take the library's form, recording into whichever runtime is loaded, and it gets the runtime line, which does nothing where the sourcing script loaded one. Run on its own, it prints its document. Nothing to do.";
    SOURCES_LIBRARY: Migrate, "A note: the script sources a library with legacy lines, so it gets the runtime, which prints the JSON document those lines record into, and its own output goes to stderr. Nothing to do, unless it is a test harness that is no part of the skill: leave it out with `--exclude` or `exclude` in skillmod.toml.";
    STAGED_DIFFERS: Migrate, "With `--staged`, the work tree's copy of the file differs from what is staged. Stage (`git add`) or stash the unstaged changes first, so what is migrated is what the commit holds.";
    STDOUT_ANSWER: Migrate, "The script's stdout is its answer, and migrating would replace it (SKM008's family): another selected script of its skill reads it (`files=$(bash list.sh)`, or piped to a filter), which would read a JSON document instead (refused in both modes: leave the script as it is, or suppress its legacy lines); or `--force` would give the runtime to a script with no legacy line whose output a caller reads (`X=$(bash script.sh)`), moving that answer to stderr (keep it with `--keep-stdout`, which leaves it on stdout before the document, or leave the script as it is).";
    SUBSHELL_RESULT: Migrate, "Capture mode: a legacy line runs in a subshell (inside `( … )`, in a part of a pipeline such as a `while read` loop fed by a pipe, in the background with `&`, or in a function called so), or a `printf` legacy line whose words change the shell (`$((n++))`, `${X:=v}`, `${X:?msg}`: capture mode records it from `$(printf …)`), where what capture mode records (or the change) is lost when the subshell ends, so the document would say less than the original (SKM008 in check). Print the line outside the subshell (a `{ …; }` group, or `while …; done < <(cmd)`), or migrate with `--mode comment`.";
    SYMLINK_FOLLOWED: Migrate, "migrate note: the file was selected through one or more symbolic links (named in the message) and is migrated where it lies, once, however many links lead to it; the links stay links.";
    TRAP_UNSUPPORTED: Migrate, "Capture mode: a `trap` whose signal list is computed at run time, or one set through `eval`, may replace the EXIT trap that prints the JSON (SKM008 in check). List its signals literally, or migrate with `--mode comment`.";
    // Runtime
    RUNTIME_CONFLICT: Runtime, "Scripts under one root need different runtimes under the same file name (two templates with one name), so neither is written. Give the templates different names.";
    RUNTIME_FOREIGN: Runtime, "A runtime file, inline block or source line stands where skillmod puts one but its bytes are not a runtime skillmod wrote (edited, planted, or of an unknown version): check reports it (SKM007, error), migrate points no script at it and leaves it as it is. Read it, then run `skillmod migrate --replace-runtime` to replace it (with a backup).";
    RUNTIME_MISSING: Runtime, "check (SKM007, error): a migrated script sources a runtime file that does not exist. At run time the script prints a document with this code and exits 70: the skill folder is incomplete; reinstall the whole folder, or run `skillmod migrate FILE` where it came from.";
    RUNTIME_NEWER: Runtime, "The runtime file is a newer runtime version than this skillmod writes; it is left as it is. Use the newer skillmod.";
    RUNTIME_OUTDATED: Runtime, "check (SKM007, warning): a migrated script sources an older runtime version, or carries an older inline runtime block or skillmod 0.1.0's one-line inline runtime. Run `skillmod migrate FILE` to bring it up to date.";
    RUNTIME_UNREADABLE: Runtime, "At run time: a migrated script's runtime file exists but cannot be read; the script prints a document with this code and exits 70. Fix the file's permissions, or reinstall the whole skill folder.";
    RUNTIME_UNSAFE: Runtime, "Where the runtime file goes there is something migrate will not replace: not a regular file, over the size limit, or unreadable. Remove it and run `skillmod migrate` again.";
    RUNTIME_UNTRACKED: Runtime, "check (SKM007, error): a migrated script in a git work tree sources a runtime file git does not track (untracked, or only intent-to-add), so a commit would leave it out and every clone would exit 70. `git add` the runtime file.";
    RUNTIME_UPGRADED: Runtime, "A note: a script's old runtime was brought up to date (skillmod 0.1.0's one-line runtime becomes a line sourcing the runtime file; an older inline runtime block becomes the current version). Nothing to do.";
    RUNTIME_VERSION: Runtime, "At run time: a migrated script's runtime file is of another runtime version than its source line asks for (a skill folder put together from two releases); the script prints a document with this code and exits 70. Reinstall the whole skill folder, or run `skillmod migrate` where it came from.";
    // Document
    CONFIDENCE_INVALID: Document, "The confidence the skill reported is not a number in 0..1 (`87%` reads as 0.87), so the default was reported, with the value in `context`; report a number in 0..1. validate reading legacy text reports it the same way, and comment-mode migrate notes each such literal value.";
    EXIT_STATUS: Document, "The skill exited with a non-zero status (`exit N`, a `set -e` failure), so `success` is false; the status is in `context`. The skill's stderr says why.";
    SIGNAL: Document, "The skill was stopped by SIGTERM, SIGINT or SIGHUP (an agent's timeout, say), so `success` is false; the signal and the status (143, 130, 129) are in `context`. Give it more time, or find why it hung.";
    SUCCESS_NOT_REPORTED: Document, "The skill exited 0 without reaching its SUCCESS or COMPLETE line, so `success` is false. Call `skillmod_success` (or keep the success line) where the skill reaches its goal.";
    // Restore
    BACKUP_CORRUPT: Restore, "A backup's bytes do not hash to the sha256 its run recorded (or changed while restoring), so nothing was written. Restore that file another way (from git, say).";
    BACKUP_FAILED: Restore, "migrate could not save a backup before rewriting (the run folder, the copy, or the manifest line), so the file was not changed. Check permissions and free space under `.skillmod/backups`, or pass `--no-backup`.";
    BACKUP_MANIFEST_INVALID: Restore, "A backup run's manifest is not a regular file (a FIFO, a device, a symlink) or is over 1 GiB, or a line of it, other than a torn last line, cannot be read, so the run is not restored. Restore its files another way (from git, say).";
    BACKUP_RUN_NOT_FOUND: Restore, "`restore --run ID` names no backup run. List runs with `skillmod restore --list`.";
    BACKUP_UNREADABLE: Restore, "A backup file of the run cannot be read. Check the permissions under `.skillmod/backups`.";
    CREATED_FILE_TRACKED: Restore, "A run restored with `--trust` (one this user's migrate did not record) lists as created a file git tracks; restore never removes a tracked file for such a run, so it is left in place. Remove it yourself with `git rm` if you mean to.";
    CREATED_NOT_RUNTIME: Restore, "A run lists as created a file that is not a runtime file (migrate creates only `skillmod-runtime*.sh`), so restore leaves it in place, forced or not: the run may not be skillmod's own. Inspect the run under `.skillmod/backups`.";
    FILE_CHANGED_SINCE_MIGRATION: Restore, "The file was edited after the migration, so restoring would lose those edits; it is left as it is. Use `--force` to restore anyway. A file the migration created (a runtime file) and that was edited since is never removed, forced or not: remove it yourself if you mean to.";
    FILE_MISSING: Restore, "The migrated file no longer exists, so restore refuses it. Use `--force` to recreate it from the backup.";
    INVALID_RUN_ID: Restore, "`restore --run` is not a run id (like 20261121T223938.761Z). List runs with `skillmod restore --list`.";
    JOURNAL_FAILED: Restore, "migrate (a note) could not record its backup run in this user's journal (`$XDG_STATE_HOME/skillmod/journal/`, else `~/.local/state/skillmod/journal/`), so a plain `restore` will not pick that run. Restore it with `skillmod restore --run ID --trust`, and set `XDG_STATE_HOME` or `HOME` to a writable folder.";
    MANIFEST_ENTRY_UNSAFE: Restore, "A manifest entry's path is absolute or leaves the project root, or its backup is not a regular file of its run, so the entry is refused and nothing was written (the run may not be skillmod's own). Inspect the run under `.skillmod/backups`.";
    MULTIPLE_ROOTS: Restore, "restore: the paths named lie in different projects, each keeping its own backups. Restore one project at a time.";
    NOT_A_REGULAR_FILE: Restore, "The file to restore is now a symlink, FIFO, device or folder, and restore writes only regular files. Move it aside and run restore again.";
    NO_BACKUPS: Restore, "There is nothing to restore: no backup run under `.skillmod` (said as a note, exit 0), or none since `--since` (an error). List runs with `skillmod restore --list`.";
    PATH_PROTECTED: Restore, "A manifest entry names a path in `.git/` or `.skillmod/` (any case or spelling a file system takes for them, or reached through a symlinked folder), which restore never writes, creates or removes, `--force` and `--trust` or not; nothing was written. A run names such a path only when it is not skillmod's own, or when a folder on the path became a symlink since the run: inspect it under `.skillmod/backups`.";
    RESTORE_FAILED: Restore, "Reading a file to restore, or removing a file the migration created (a runtime file), failed. Check its permissions and its folder's, and run restore again.";
    RUNTIME_STILL_USED: Restore, "A runtime file the run created is left in place: a script of the run is still migrated (refused, failed or not selected) and sources it. Restore that script, then run restore again.";
    RUN_NOT_RECORDED: Restore, "A backup run is not one this user's migrate recorded in its journal: git tracks files in its folder (it came with the repository), it is dated in the future, the journal does not name it (an older skillmod kept none, or another user made it), another run was put in the place of the one it names, or the journal cannot be used. A plain `restore` never picks it (a note says why); `--run ID` refuses it. If you trust it, restore it with `skillmod restore --run ID --trust`.";
    // Git
    COMMIT_FAILED: Git, "`migrate --commit` could not stage or commit the migrated files; git's message follows (a pre-commit hook, say). Fix what git reports and commit by hand, or use `--no-verify` to skip hooks.";
    GIT_FAILED: Git, "git could not be run, or a git command failed; the message holds git's stderr. Check that git is installed and the repository is sound.";
    INVALID_REVISION: Git, "`--changed-since REV` names nothing git resolves to a commit. Pass a branch, tag or commit that exists in the repository.";
    MULTIPLE_REPOSITORIES: Git, "`migrate --commit` makes one commit, but the files lie in several git work trees. Run once per repository (see docs/multi-repo.md).";
    NOT_A_GIT_REPO: Git, "`--commit`, `--changed-since` or `--staged` needs a git work tree, and the files or the working folder are not in one. Run inside the repository, or drop the flag.";
    // Validate
    INPUT_UNREADABLE: Validate, "An input to `validate` cannot be read, or is not a file, a pipe or a character device. Pass a file, or `-` for stdin.";
    NOT_UTF8: Validate, "The output is not UTF-8 (the message gives the offset of the first bad byte), so it is invalid; the rest is still read. Make the skill print UTF-8.";
    NO_OUTPUT_FOUND: Validate, "The output holds no result for the protocol asked: empty stdout, no `` ```json `` block, no `<<<FINAL_RESULT>>>` marker, no legacy result line, or legacy text in strict mode. Make the skill print its document, or pick the right `--protocol`.";
    OUTPUT_TOO_LARGE: Validate, "The skill run by `--run` printed more than the limit and was killed, or an input is larger than the limit. Raise it with `--max-output`.";
    RUN_FAILED: Validate, "`validate --run` could not make the temporary folder (`--cwd-temp`), start the shell, or wait for the skill; the message has the system's reason. Fix that and run again.";
    SCHEMA_INVALID: Validate, "The schema is not JSON or does not compile as a JSON Schema. Fix the schema file.";
    SCHEMA_NOT_FOUND: Validate, "`--schema` names neither a built-in schema nor an existing file. Use a built-in name or a path to a `.json` schema.";
    SCHEMA_UNREADABLE: Validate, "The schema file cannot be read. Check its permissions.";
    SCRIPT_NOT_FOUND: Validate, "`validate --run SCRIPT` cannot read the script or resolve its path. Pass the path of an existing, readable script.";
    STRAY_OUTPUT: Validate, "stdout holds one JSON document and other text before or after it. Print only the document on stdout and send the other text to stderr (`>&2`).";
    TIMEOUT: Validate, "The skill run by `--run` ran longer than `--timeout` and was stopped (SIGTERM, then SIGKILL 2 s later). Raise `--timeout`, or find why it hung.";
    VALIDATION_FAILED: Validate, "The document was read but does not match the schema; `pointer` names the offending value. Fix what the skill prints.";
    // Internal
    INTERNAL_ERROR: Internal, "Capture mode found no runtime, or a legacy statement without a command name: a bug in skillmod. Please report it with the script.";
    INTERNAL_PANIC: Internal, "skillmod crashed on this file; it was left unchanged and the other files were still done. Please report it with the script.";
    OVERLAPPING_EDITS: Internal, "The planner made two edits that overlap, so the file was left unchanged. Please report it with the script.";
    PARSER_INIT_FAILED: Internal, "The bash grammar cannot be loaded into tree-sitter: a broken build. Please report it.";
    PARSE_FAILED: Internal, "tree-sitter returned no tree for a script. Please report it with the script.";
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::path::{Path, PathBuf};

    const RUNTIME_TEMPLATE: &str = "templates/capture-runtime.sh.j2";

    fn root() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
    }

    /// `[A-Z][A-Z0-9]*(_[A-Z0-9]+)+`.
    fn is_code(word: &str) -> bool {
        let mut parts = word.split('_');
        let first_ok = parts.next().is_some_and(|p| {
            p.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
                && p.bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        });
        first_ok
            && parts.all(|p| {
                !p.is_empty()
                    && p.bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
            })
    }

    /// The codes the runtime writes into a skill's document: the first argument of each
    /// `__skm_err` in the template (shell text, which the compiler does not see).
    fn runtime_codes() -> Vec<String> {
        let text = std::fs::read_to_string(root().join(RUNTIME_TEMPLATE)).expect("template");
        text.match_indices("__skm_err ")
            .filter_map(|(at, lead)| text[at + lead.len()..].split_whitespace().next())
            .filter(|word| is_code(word))
            .map(str::to_string)
            .collect()
    }

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read src/").flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn every_code_the_runtime_writes_is_catalogued() {
        let catalogued: HashSet<&str> = CODES.iter().map(|c| c.code).collect();
        let found = runtime_codes();
        assert!(
            found.iter().any(|c| c == "SUCCESS_NOT_REPORTED"),
            "{found:?}"
        );
        let missing: Vec<&String> = found
            .iter()
            .filter(|c| !catalogued.contains(c.as_str()))
            .collect();
        assert!(missing.is_empty(), "not in src/codes.rs: {missing:?}");
    }

    #[test]
    fn every_catalogued_code_is_used() {
        let mut files = Vec::new();
        rust_files(&root().join("src"), &mut files);
        let this = root().join("src").join("codes.rs");
        let mut text = std::fs::read_to_string(root().join(RUNTIME_TEMPLATE)).expect("template");
        for file in files.iter().filter(|f| **f != this) {
            text.push_str(&std::fs::read_to_string(file).expect("source"));
        }
        let unused: Vec<&str> = CODES
            .iter()
            .map(|c| c.code)
            .filter(|code| {
                !text.match_indices(code).any(|(at, _)| {
                    let before = text[..at].bytes().last();
                    let after = text[at + code.len()..].bytes().next();
                    let word =
                        |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
                    !word(before) && !word(after)
                })
            })
            .collect();
        assert!(unused.is_empty(), "catalogued but used nowhere: {unused:?}");
    }

    #[test]
    fn codes_are_upper_snake_case_and_one_cell_each() {
        let mut seen = HashSet::new();
        for code in CODES {
            assert!(
                is_code(code.code) || code.code.bytes().all(|b| b.is_ascii_uppercase()),
                "{} is not UPPER_SNAKE_CASE",
                code.code
            );
            assert!(seen.insert(code.code), "{} is listed twice", code.code);
            assert!(
                !code.meaning.is_empty() && !code.meaning.contains(['|', '\n']),
                "the meaning of {} must be one table cell (no `|`, no newline)",
                code.code
            );
        }
    }

    #[test]
    fn codes_are_sorted_by_area_then_code() {
        for pair in CODES.windows(2) {
            assert!(
                (pair[0].area, pair[0].code) < (pair[1].area, pair[1].code),
                "CODES is not sorted by area, then code: {} comes before {}",
                pair[0].code,
                pair[1].code
            );
        }
    }
}
