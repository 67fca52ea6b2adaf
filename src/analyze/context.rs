//! Where a command's output goes: the script's own stdout, or somewhere that makes it data (a
//! pipe, a file, stderr, a command substitution, a function whose output is captured). One walk
//! of the tree carries each node's output context down from its ancestors, so no node ever has
//! to look upwards.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use tree_sitter::{Node, Tree};

use super::redirects::{Points, redirects_stdout, stdout_after_under};

/// Why a command's stdout does not reach the script's stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotStdout {
    Captured,
    Piped,
    Redirected,
    InsideHeredoc,
    ParseError,
}

/// A command of interest and the context the walk found it in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Site<'t> {
    pub node: Node<'t>,
    /// Set when an ancestor (or the command's own redirect) keeps its output off stdout.
    pub blocked: Option<NotStdout>,
    /// The innermost function definition holding the command.
    function: Option<usize>,
}

#[derive(Debug)]
struct Function<'s, 't> {
    name: &'s [u8],
    /// The `function_definition` node.
    node: Node<'t>,
    parent: Option<usize>,
}

#[derive(Debug)]
struct Call<'s, 't> {
    name: &'s [u8],
    site: Site<'t>,
}

/// What one walk collects: `echo`, `cat`, `printf` and `trap` commands, calls, function
/// definitions, and whether the block marker comment is present.
#[derive(Debug)]
pub(crate) struct Survey<'s, 't> {
    /// The tree's root: where a node's ancestry is read from, top down, in one descent.
    pub root: Node<'t>,
    pub echoes: Vec<Site<'t>>,
    pub cats: Vec<Site<'t>>,
    pub printfs: Vec<Site<'t>>,
    pub traps: Vec<Site<'t>>,
    pub marker_comment: bool,
    /// Nodes the walks entered: the work the survey did, for tests that bound it.
    pub visited: usize,
    calls: Vec<Call<'s, 't>>,
    /// Names a command hands on as words to run (`retry finish`, `eval finish`, `time { finish;
    /// }`, which tree-sitter-bash reads as `time` with arguments), with the command's name.
    handed: Vec<(&'s [u8], Call<'s, 't>)>,
    /// For a call piped into a `cat` or `tee` that prints what it reads (`finish | cat`): the
    /// call's node and the printing command's.
    piped_on: Vec<(usize, usize)>,
    functions: Vec<Function<'s, 't>>,
    captured: Vec<bool>,
    /// Functions captured at one call and printing to stdout at another.
    mixed: Vec<&'s [u8]>,
    /// Where top-level `exec >&2` (or `exec >FILE`) sends the script's stdout away: nothing in
    /// these byte ranges prints on stdout.
    stdout_gone: Vec<std::ops::Range<usize>>,
    /// The tree's family links and flow answers, read once when a legacy line first asks.
    flow: std::cell::OnceCell<super::flow::Flow<'t>>,
}

struct Walk<'s, 't, 'o> {
    source: &'s [u8],
    marker: &'s [u8],
    /// Sorted byte offsets worth reaching.
    offsets: &'o [usize],
    survey: Survey<'s, 't>,
}

/// Up to this many names are searched one by one; more get one automaton for all.
const FEW_NAMES: usize = 8;

/// Offsets where any of `names` stands as a whole word (overlaps included, unordered).
pub(crate) fn word_occurrences_of_all(source: &[u8], names: &[&[u8]]) -> Vec<usize> {
    let names: Vec<&[u8]> = names.iter().copied().filter(|n| !n.is_empty()).collect();
    let is_name_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let whole_word = |start: usize, end: usize| {
        let before = start.checked_sub(1).map(|i| source[i]);
        !before.is_some_and(is_name_byte) && !source.get(end).copied().is_some_and(is_name_byte)
    };
    if names.len() <= FEW_NAMES {
        // A few SIMD scans cost less than building an automaton for every file.
        let mut found = Vec::new();
        for name in names {
            let finder = memchr::memmem::Finder::new(name);
            let mut at = 0;
            while let Some(offset) = finder.find(&source[at..]) {
                let start = at + offset;
                if whole_word(start, start + name.len()) {
                    found.push(start);
                }
                at = start + 1;
            }
        }
        return found;
    }
    // Built per file: the NFA builds in time linear in the names, where a DFA's construction
    // cost more than the search itself.
    let Ok(automaton) = aho_corasick::AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
        .build(&names)
    else {
        return Vec::new();
    };
    automaton
        .find_overlapping_iter(source)
        .filter(|m| whole_word(m.start(), m.end()))
        .map(|m| m.start())
        .collect()
}

/// Sorted start offsets of every occurrence of the needles in `source`.
pub(super) fn occurrences<'n>(
    source: &[u8],
    needles: impl Iterator<Item = &'n [u8]>,
) -> Vec<usize> {
    let mut offsets: Vec<usize> = needles
        .filter(|n| !n.is_empty())
        .flat_map(|needle| memchr::memmem::find_iter(source, needle).collect::<Vec<_>>())
        .collect();
    offsets.sort_unstable();
    offsets.dedup();
    offsets
}

/// The script's functions by name, nested definitions and the calls inside each.
struct CallGraph<'s> {
    by_name: HashMap<&'s [u8], Vec<usize>>,
    children: Vec<Vec<usize>>,
    calls_in: Vec<Vec<&'s [u8]>>,
}

impl<'s> CallGraph<'s> {
    fn of(functions: &[Function<'s, '_>], calls: &[Call<'s, '_>]) -> CallGraph<'s> {
        let mut by_name: HashMap<&[u8], Vec<usize>> = HashMap::new();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); functions.len()];
        for (id, function) in functions.iter().enumerate() {
            by_name.entry(function.name).or_default().push(id);
            if let Some(parent) = function.parent {
                children[parent].push(id);
            }
        }
        let mut calls_in: Vec<Vec<&[u8]>> = vec![Vec::new(); functions.len()];
        for call in calls.iter().filter(|c| by_name.contains_key(c.name)) {
            if let Some(function) = call.site.function {
                calls_in[function].push(call.name);
            }
        }
        CallGraph {
            by_name,
            children,
            calls_in,
        }
    }

    /// The names of the functions `seeds` call, and of those called inside them (their nested
    /// definitions included), each function entered once.
    fn reached<'c>(&self, seeds: impl Iterator<Item = &'c Call<'s, 'c>>) -> HashSet<&'s [u8]>
    where
        's: 'c,
    {
        let mut entered = vec![false; self.children.len()];
        let mut queue: Vec<&[u8]> = seeds
            .filter(|c| self.by_name.contains_key(c.name))
            .map(|c| c.name)
            .collect();
        let mut names: HashSet<&[u8]> = HashSet::new();
        while let Some(name) = queue.pop() {
            if !names.insert(name) {
                continue;
            }
            let mut stack: Vec<usize> = self.by_name.get(name).cloned().unwrap_or_default();
            while let Some(id) = stack.pop() {
                if std::mem::replace(&mut entered[id], true) {
                    continue;
                }
                queue.extend(self.calls_in[id].iter().filter(|n| !names.contains(*n)));
                stack.extend(&self.children[id]);
            }
        }
        names
    }
}

impl<'s, 't> Survey<'s, 't> {
    /// Walk the tree; `marker` is the comment prefix that marks a migrated script; `interesting`
    /// are the sorted offsets of what the analysis looks for (needles and legacy markers). The walk only
    /// goes down into nodes that hold an offset where something of interest can start (an
    /// `echo`, a legacy marker, the JSON block, a function definition). Whether a function's
    /// output is captured matters only for functions that hold an `echo`, `printf` or `cat`
    /// whose output is not already kept off stdout where it stands, and for the functions that
    /// call those: a second walk then also enters every occurrence of a function's name, to find
    /// the call sites.
    pub fn new(
        tree: &'t Tree,
        source: &'s [u8],
        marker: &'s [u8],
        interesting: &[usize],
    ) -> Survey<'s, 't> {
        // Where a function can be defined, on top of what the caller found.
        let mut offsets = occurrences(source, [b"()".as_slice(), b"function"].into_iter());
        offsets.extend(interesting);
        offsets.sort_unstable();
        offsets.dedup();
        let mut survey = Walk::run(tree, source, marker, &offsets);
        let writers: Vec<Option<usize>> = survey
            .echoes
            .iter()
            .chain(&survey.printfs)
            .chain(&survey.cats)
            // A piped one too: the command it is piped into prints in the function's place.
            .filter(|site| {
                site.function.is_some() && matches!(site.blocked, None | Some(NotStdout::Piped))
            })
            .map(|site| site.function)
            .collect();
        if !writers.is_empty() {
            // One more walk that reaches every call of every function (all their names found in
            // one scan): whether a writer's output is captured is decided at its call sites.
            let names: Vec<&[u8]> = survey.functions.iter().map(|f| f.name).collect();
            offsets.extend(word_occurrences_of_all(source, &names));
            offsets.sort_unstable();
            offsets.dedup();
            let first = survey.visited;
            survey = Walk::run(tree, source, marker, &offsets);
            survey.visited += first;
        }
        survey.captured = survey.captured_functions();
        survey.stdout_gone = stdout_gone(tree.root_node(), source);
        survey
    }

    /// The failure-path and line walks over this tree (see `flow::Flow`).
    pub(crate) fn flow(&self, source: &[u8]) -> &super::flow::Flow<'t> {
        self.flow
            .get_or_init(|| super::flow::Flow::of(self.root, source))
    }

    /// Functions whose output is captured, piped or redirected at some call site, directly or
    /// through other such functions: a worklist over the call graph, each call looked at once a
    /// function it lies in is known to be captured.
    fn captured_functions(&mut self) -> Vec<bool> {
        if self.functions.is_empty() {
            return Vec::new();
        }
        let graph = CallGraph::of(&self.functions, &self.calls);
        let piped_on: HashMap<usize, usize> = self.piped_on.iter().copied().collect();
        let names = graph.reached(self.calls.iter().filter(|c| c.site.blocked.is_some()));
        // A function is captured by name, as before: every definition of a captured name.
        let mut captured: Vec<bool> = self
            .functions
            .iter()
            .map(|f| names.contains(f.name))
            .collect();
        // Captured by something other than a `cat` or `tee` that prints it on: only then is a
        // call piped into one a call that prints (else the pipe is an SKM010 note).
        let kept = graph.reached(
            self.calls
                .iter()
                .filter(|c| c.site.blocked.is_some() && !piped_on.contains_key(&c.site.node.id())),
        );
        let printing_sites: HashSet<usize> = self
            .cats
            .iter()
            .chain(self.calls.iter().map(|c| &c.site))
            .filter(|site| site.blocked.is_none())
            .map(|site| site.node.id())
            .collect();
        // One also called where its output reaches stdout prints there: its lines are legacy
        // lines (and migrate refuses it, CAPTURED_AND_PRINTED). So does one run by a function
        // or `eval` it is handed to by name, and one piped into a `cat` or `tee` on stdout.
        let runs_words = |wrapper: &[u8]| {
            graph.by_name.contains_key(wrapper) || matches!(wrapper, b"eval" | b"time" | b"{")
        };
        let printed: HashSet<&[u8]> = self
            .calls
            .iter()
            .filter(|c| {
                c.site.blocked.is_none()
                    || (c.site.blocked == Some(NotStdout::Piped)
                        && kept.contains(c.name)
                        && piped_on
                            .get(&c.site.node.id())
                            .is_some_and(|p| printing_sites.contains(p)))
            })
            .chain(
                self.handed
                    .iter()
                    .filter(|(wrapper, c)| runs_words(wrapper) && c.site.blocked.is_none())
                    .map(|(_, c)| c),
            )
            .filter(|c| names.contains(c.name))
            .filter(|c| !self.inside_captured(c.site.function, &captured))
            .map(|c| c.name)
            .collect();
        for (flag, function) in captured.iter_mut().zip(&self.functions) {
            if printed.contains(function.name) {
                *flag = false;
            }
        }
        self.mixed = printed.into_iter().collect();
        captured
    }

    /// True when the site lies in a function whose output is captured at one call and reaches
    /// stdout at another.
    pub fn in_mixed_function(&self, site: &Site<'_>) -> bool {
        let mut function = site.function;
        while let Some(id) = function {
            if self.mixed.contains(&self.functions[id].name) {
                return true;
            }
            function = self.functions[id].parent;
        }
        false
    }

    fn inside_captured(&self, mut function: Option<usize>, captured: &[bool]) -> bool {
        while let Some(id) = function {
            if captured[id] {
                return true;
            }
            function = self.functions[id].parent;
        }
        false
    }

    /// True when the site lies in a function whose output the script captures or discards
    /// wherever it calls it, whatever the site's own context.
    pub fn in_captured_function(&self, site: &Site<'_>) -> bool {
        self.inside_captured(site.function, &self.captured)
    }

    /// For an `echo` piped straight into a `tee` whose output reaches the script's stdout
    /// (`echo "SUCCESS" | tee -a log`): that `tee` command, which prints what the echo wrote.
    pub fn tee_after(&self, echo: &Site<'t>, source: &[u8]) -> Option<Node<'t>> {
        // The echo with its own redirections (`echo SUCCESS 2>&1 | tee log`), which keep its
        // output on the pipe, is the pipeline's first part.
        // The cheap test first: a parent is found by descending from the root (as deep as the
        // echo is nested), so it is looked for only for an echo on a pipe.
        if echo.blocked != Some(NotStdout::Piped) {
            return None;
        }
        let part = echo
            .node
            .parent()
            .filter(|p| p.kind() == "redirected_statement")
            .unwrap_or(echo.node);
        let pipeline = part.parent().filter(|p| p.kind() == "pipeline")?;
        if pipeline.named_child_count() != 2
            || super::redirects::redirects_stdout(echo.node, source)
        {
            return None;
        }
        let tee = last_named_child(pipeline).filter(|n| n.id() != part.id())?;
        self.calls
            .iter()
            .find(|call| {
                call.site.node.id() == tee.id()
                    && invocation(call.site.node, source).is_some_and(|i| i.name == "tee")
            })
            .filter(|call| self.reach(&call.site).is_ok())
            .map(|call| call.site.node)
    }

    /// The function definition the site lies in directly: its name and node.
    pub fn function_of(&self, site: &Site<'t>) -> Option<(&'s [u8], Node<'t>)> {
        let function = &self.functions[site.function?];
        Some((function.name, function.node))
    }

    /// The commands the walk met that run no utility it reads (function calls among them), each
    /// with its literal name.
    pub fn calls(&self) -> impl Iterator<Item = (&'s [u8], &Site<'t>)> {
        self.calls.iter().map(|call| (call.name, &call.site))
    }

    /// Whether the script's function of this name may print on stdout: an `echo`, `printf` or
    /// `cat` in it that nothing keeps off stdout, or a call in it of a function of the script.
    pub fn may_print(&self, name: &[u8]) -> bool {
        let ids: Vec<usize> = (0..self.functions.len())
            .filter(|&i| self.functions[i].name == name)
            .collect();
        let inside = |site: &Site<'_>| site.function.is_some_and(|f| ids.contains(&f));
        let writes = self
            .echoes
            .iter()
            .chain(&self.printfs)
            .chain(&self.cats)
            .any(|site| inside(site) && site.blocked.is_none());
        writes
            || self
                .calls
                .iter()
                .any(|call| inside(&call.site) && self.defines(call.name))
    }

    /// The names of the script's functions (one per definition).
    pub fn function_names(&self) -> impl Iterator<Item = &'s [u8]> {
        self.functions.iter().map(|f| f.name)
    }

    /// True when the script defines a function of this name.
    pub fn defines(&self, name: &[u8]) -> bool {
        self.functions.iter().any(|f| f.name == name)
    }

    /// How many definitions of `name` the script holds (nested ones, in branches, redefinitions).
    pub fn definitions(&self, name: &[u8]) -> usize {
        self.functions.iter().filter(|f| f.name == name).count()
    }

    /// Ok when the site's output is the script's stdout.
    pub fn reach(&self, site: &Site<'_>) -> Result<(), NotStdout> {
        let at = site.node.start_byte();
        if self.stdout_gone.iter().any(|gone| gone.contains(&at)) {
            return Err(NotStdout::Redirected);
        }
        match site.blocked {
            Some(reason) => Err(reason),
            None if self.inside_captured(site.function, &self.captured) => Err(NotStdout::Captured),
            None => Ok(()),
        }
    }
}

/// Node kind ids the walk compares against (ids, not names: no string work per node).
struct Kinds {
    command: u16,
    comment: u16,
    function_definition: u16,
    command_substitution: u16,
    process_substitution: u16,
    heredoc_body: u16,
    heredoc_redirect: u16,
    redirected_statement: u16,
    pipeline: u16,
    right_field: u16,
}

fn kinds() -> &'static Kinds {
    static KINDS: OnceLock<Kinds> = OnceLock::new();
    KINDS.get_or_init(|| {
        let language: tree_sitter::Language = tree_sitter_bash::LANGUAGE.into();
        let id = |name| language.id_for_node_kind(name, true);
        Kinds {
            command: id("command"),
            comment: id("comment"),
            function_definition: id("function_definition"),
            command_substitution: id("command_substitution"),
            process_substitution: id("process_substitution"),
            heredoc_body: id("heredoc_body"),
            heredoc_redirect: id("heredoc_redirect"),
            redirected_statement: id("redirected_statement"),
            pipeline: id("pipeline"),
            right_field: language.field_id_for_name("right").map_or(0, |f| f.get()),
        }
    })
}

/// The output context a node passes to its children.
struct Frame<'t> {
    node: Node<'t>,
    kind: u16,
    blocked: Option<NotStdout>,
    function: Option<usize>,
    /// For a pipeline: its last named child, the only one whose output goes on.
    last_named: Option<usize>,
    /// A block for one node further down only: tree-sitter-bash hangs a redirection that ends an
    /// `&&`/`||` list on the whole list, while bash applies it to the list's last command.
    pending: Option<(usize, NotStdout)>,
}

impl<'s, 't, 'o> Walk<'s, 't, 'o> {
    fn run(
        tree: &'t Tree,
        source: &'s [u8],
        marker: &'s [u8],
        offsets: &'o [usize],
    ) -> Survey<'s, 't> {
        let mut walk = Walk {
            source,
            marker,
            offsets,
            survey: Survey {
                root: tree.root_node(),
                echoes: Vec::new(),
                cats: Vec::new(),
                printfs: Vec::new(),
                traps: Vec::new(),
                marker_comment: false,
                visited: 0,
                calls: Vec::new(),
                handed: Vec::new(),
                piped_on: Vec::new(),
                functions: Vec::new(),
                captured: Vec::new(),
                mixed: Vec::new(),
                stdout_gone: Vec::new(),
                flow: std::cell::OnceCell::new(),
            },
        };
        walk.descend(tree);
        walk.survey
    }

    /// True when an interesting offset lies inside the node.
    fn holds_offset(&self, node: Node<'_>) -> bool {
        let i = self.offsets.partition_point(|&o| o < node.start_byte());
        self.offsets.get(i).is_some_and(|&o| o < node.end_byte())
    }

    /// Depth-first with one cursor and a stack of frames, into nodes holding an offset only.
    fn descend(&mut self, tree: &'t Tree) {
        let kinds = kinds();
        let mut cursor = tree.walk();
        let mut stack: Vec<Frame<'t>> = Vec::new();
        loop {
            let node = cursor.node();
            let (blocked, function) = match stack.last() {
                None => (None, None),
                Some(parent) => {
                    let extra = if parent.kind == kinds.pipeline
                        && node.is_named()
                        && parent.last_named != Some(node.id())
                    {
                        Some(NotStdout::Piped)
                    } else if parent.kind == kinds.heredoc_redirect
                        && cursor.field_id().map(|f| f.get()) != Some(kinds.right_field)
                    {
                        Some(NotStdout::InsideHeredoc)
                    } else {
                        None
                    };
                    let pending = parent
                        .pending
                        .filter(|(target, _)| *target == node.id())
                        .map(|(_, reason)| reason);
                    (parent.blocked.or(extra).or(pending), parent.function)
                }
            };
            let inherited = stack.last().and_then(|f| f.pending);
            let parent = stack.last().map(|f| (f.node, f.kind));
            let holds = self.holds_offset(node);
            self.survey.visited += 1;
            let frame = self
                .enter(node, parent, holds, kinds, blocked, function)
                .map(|mut frame| {
                    frame.pending = frame.pending.or(inherited);
                    frame
                });
            if let Some(frame) = frame
                && holds
                && cursor.goto_first_child()
            {
                stack.push(frame);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
                stack.pop();
            }
        }
    }

    /// Record a command that runs no utility the walk reads: a call (of a function, maybe), the
    /// names it hands on as words to run, and a `cat` or `tee` it is piped into (`piped`: it is
    /// a pipeline's part).
    fn record_call(&mut self, node: Node<'t>, site: Site<'t>, piped: bool) {
        let Some(name) = call_name(node, self.source) else {
            return;
        };
        for handed in handed_names(node, self.source) {
            self.survey.handed.push((name, Call { name: handed, site }));
        }
        if let Some(printer) = piped
            .then(|| piped_into_printer(node, self.source))
            .flatten()
        {
            self.survey.piped_on.push((node.id(), printer));
        }
        self.survey.calls.push(Call { name, site });
    }

    /// Record what matters about `node` under `parent` (its node and kind; `holds`: an interesting
    /// offset lies inside it); returns the frame for its children (None: skip them).
    fn enter(
        &mut self,
        node: Node<'t>,
        parent: Option<(Node<'t>, u16)>,
        holds: bool,
        kinds: &Kinds,
        blocked: Option<NotStdout>,
        mut function: Option<usize>,
    ) -> Option<Frame<'t>> {
        let kind = node.kind_id();
        // A `cat` is reached through its redirected statement, whose heredoc holds the offset.
        let relevant = holds || parent.map(|p| p.1) == Some(kinds.redirected_statement);
        if !relevant {
            return None;
        }
        if kind == kinds.comment {
            if self.source[node.start_byte()..node.end_byte()].starts_with(self.marker) {
                self.survey.marker_comment = true;
            }
            return None;
        }
        if kind == kinds.command {
            let site = Site {
                node,
                blocked: blocked.or_else(|| {
                    (stdout_after_under(node, parent.map(|p| p.0), self.source) != Points::Stdout)
                        .then_some(NotStdout::Redirected)
                }),
                function,
            };
            match invocation(node, self.source).map(|i| i.name).as_deref() {
                Some("echo") => self.survey.echoes.push(site),
                Some("cat") => self.survey.cats.push(site),
                // `printf -v VAR` assigns; it prints nothing.
                Some("printf") if !assigns_only(node, self.source) => {
                    self.survey.printfs.push(site)
                }
                Some("trap") => self.survey.traps.push(site),
                // A trap set through eval may replace capture mode's EXIT trap unseen.
                Some("eval")
                    if memchr::memmem::find(&self.source[node.byte_range()], b"trap").is_some() =>
                {
                    self.survey.traps.push(site)
                }
                _ => {
                    // Only a pipeline's part, or its redirected statement, can be piped on.
                    let piped = parent.is_some_and(|(_, kind)| {
                        kind == kinds.pipeline || kind == kinds.redirected_statement
                    });
                    self.record_call(node, site, piped);
                }
            }
        } else if kind == kinds.function_definition
            && let Some(name) = node.child_by_field_name("name")
        {
            self.survey.functions.push(Function {
                name: &self.source[name.start_byte()..name.end_byte()],
                node,
                parent: function,
            });
            function = Some(self.survey.functions.len() - 1);
        }
        let redirected = kind == kinds.redirected_statement && redirects_stdout(node, self.source);
        let own = if kind == kinds.command_substitution || kind == kinds.process_substitution {
            Some(NotStdout::Captured)
        } else if kind == kinds.heredoc_body {
            Some(NotStdout::InsideHeredoc)
        } else if node.is_error() {
            Some(NotStdout::ParseError)
        } else if (redirected
            || (kind == kinds.function_definition && redirects_stdout(node, self.source)))
            && list_tail(node).is_none()
        {
            Some(NotStdout::Redirected)
        } else {
            None
        };
        let pending = redirected
            .then(|| list_tail(node))
            .flatten()
            .map(|tail| (tail.id(), NotStdout::Redirected));
        let last_named = (kind == kinds.pipeline)
            .then(|| last_named_child(node).map(|n| n.id()))
            .flatten();
        Some(Frame {
            node,
            kind,
            blocked: blocked.or(own),
            function,
            last_named,
            pending,
        })
    }
}

/// Where the script has no stdout: from the end of each top-level `exec` that runs no command
/// and sends descriptor 1 to stderr or a file (`exec 1>&2`, `exec >"$LOG" 2>&1`) to the next
/// such `exec` that points it anywhere else (`exec >&3`, restoring a saved stdout; `exec 2>&3`
/// then `exec >&2`: the execs' descriptors are followed from one to the next), or to the end. A
/// top-level call of a function of the script runs the bare `exec`s of its body there. A
/// process substitution (`exec > >(tee -a log)`) still prints, so it sends nothing away.
fn stdout_gone(root: Node<'_>, source: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut gone = Vec::new();
    let mut since: Option<usize> = None;
    let mut shell = super::redirects::ShellDescriptors::new();
    let mut cursor = root.walk();
    let statements: Vec<Node<'_>> = root.named_children(&mut cursor).collect();
    let bodies = super::flow::top_functions(root, source);
    let functions = functions_with_execs(&bodies, source);
    for statement in &statements {
        // A statement that may run an `exec` giving stdout back (`if …; then exec >&3; fi`,
        // `[ … ] && exec >&3`, a function that does): from that `exec` on, stdout may be the
        // script's again.
        if let Some(start) = since
            && let Some(exec) = possible_execs(*statement, source, &bodies)
                .into_iter()
                .find(|exec| {
                    let mut maybe = shell.clone();
                    maybe.exec(*exec, source);
                    maybe.stdout() == Points::Stdout
                })
        {
            gone.push(start..exec.start_byte());
            since = None;
            shell.exec(exec, source);
            continue;
        }
        let execs: Vec<Node<'_>> = if super::parser::backgrounded(*statement, source) {
            Vec::new()
        } else if is_bare_exec(*statement, source) {
            vec![*statement]
        } else if functions.is_empty() || statement.kind() != "command" {
            Vec::new()
        } else {
            command_name_bytes(*statement, source)
                .and_then(|name| functions.get(name).cloned())
                .unwrap_or_default()
        };
        for exec in execs {
            let before = shell.stdout();
            shell.exec(exec, source);
            // A file named at run time (`exec >"$LOG"`) counts as one; a descriptor copied
            // (`exec >&3`) may be the saved stdout.
            let away = !has_descendant(exec, "process_substitution")
                && match shell.stdout() {
                    Points::Stderr | Points::Elsewhere => true,
                    Points::Unknown => !super::redirects::stdout_duplicated(exec, source),
                    Points::Stdout => false,
                };
            match (since, away) {
                (None, true) => since = Some(statement.end_byte()),
                (Some(start), false) if shell.stdout() != before => {
                    gone.push(start..statement.start_byte());
                    since = None;
                }
                _ => {}
            }
        }
    }
    gone.extend(since.map(|start| start..usize::MAX));
    gone
}

/// The bare `exec`s a top-level statement may run in the main shell, in order: in a branch, a
/// loop, a `{…}` group, after `!`, at the end of an `&&`/`||` list, in a compound statement whose
/// own redirections leave descriptor 1 alone (bash restores the ones they move), and in the
/// script's functions it calls (`bodies`, followed 4 calls deep). Not those in a subshell, a
/// pipeline, a substitution, the background or a function it defines.
fn possible_execs<'t>(
    statement: Node<'t>,
    source: &[u8],
    bodies: &super::flow::Functions<'t>,
) -> Vec<Node<'t>> {
    struct Search<'a, 't> {
        source: &'a [u8],
        bodies: &'a super::flow::Functions<'t>,
        found: Vec<Node<'t>>,
    }
    impl<'t> Search<'_, 't> {
        fn visit(&mut self, node: Node<'t>, depth: usize) {
            let source = self.source;
            if super::parser::backgrounded(node, source) {
                return;
            }
            // `[ … ] && exec >&3`: tree-sitter-bash gives the redirection to the list, bash to
            // its last command.
            let list_exec = list_tail(node).is_some_and(|tail| bare_exec_command(tail, source));
            match node.kind() {
                "subshell"
                | "pipeline"
                | "function_definition"
                | "command_substitution"
                | "process_substitution" => {}
                _ if is_bare_exec(node, source) || list_exec => self.found.push(node),
                "redirected_statement" if super::redirects::redirects_stdout(node, source) => {}
                "command" => {
                    let body = command_name_bytes(node, source).and_then(|n| self.bodies.get(n));
                    if let Some(body) = body.filter(|_| depth < 4) {
                        self.visit(*body, depth + 1);
                    }
                }
                _ => {
                    let mut cursor = node.walk();
                    let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
                    for child in children {
                        self.visit(child, depth);
                    }
                }
            }
        }
    }
    let mut search = Search {
        source,
        bodies,
        found: Vec::new(),
    };
    search.visit(statement, 0);
    search.found
}

/// An `exec` that runs no command, only redirections. Its only words may be descriptors written
/// against their operators (`exec 0<&3`, `exec {o}>&3`), which tree-sitter-bash gives to the
/// command.
fn is_bare_exec(statement: Node<'_>, source: &[u8]) -> bool {
    statement.kind() == "redirected_statement"
        && statement.child_by_field_name("body").is_some_and(|body| {
            // `! exec >&3`: the redirection is the statement's, the `exec` is negated.
            let command = match body.kind() {
                "negated_command" => body.named_child(0),
                _ => Some(body),
            };
            command.is_some_and(|command| bare_exec_command(command, source))
        })
}

/// A command `exec` (or `command exec`, `builtin exec`, `time exec`) whose only other words name descriptors
/// (or end the options, `--`).
pub(crate) fn bare_exec_command(command: Node<'_>, source: &[u8]) -> bool {
    let mut cursor = command.walk();
    let mut words = command.children_by_field_name("argument", &mut cursor);
    let named_exec = match command_name_bytes(command, source) {
        Some(b"exec") => true,
        Some(b"command" | b"builtin" | b"time") => words
            .next()
            .is_some_and(|w| &source[w.byte_range()] == b"exec"),
        _ => false,
    };
    named_exec && words.all(|w| names_a_descriptor(w, source) || &source[w.byte_range()] == b"--")
}

/// The top-level functions whose body runs bare `exec`s, by name, with those `exec`s: looked
/// up once, not per call.
fn functions_with_execs<'f, 't>(
    bodies: &'f super::flow::Functions<'t>,
    source: &[u8],
) -> HashMap<&'f [u8], Vec<Node<'t>>> {
    bodies
        .iter()
        .filter_map(|(name, body)| {
            let mut cursor = body.walk();
            let execs: Vec<Node<'t>> = body
                .named_children(&mut cursor)
                .filter(|s| is_bare_exec(*s, source))
                .collect();
            (!execs.is_empty()).then_some((name.as_slice(), execs))
        })
        .collect()
}

fn has_descendant(node: Node<'_>, kind: &str) -> bool {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .any(|child| child.kind() == kind || has_descendant(child, kind))
}

/// For a redirected statement whose body is an `&&`/`||` list: the list's last command, the only
/// one bash redirects.
fn list_tail(redirected: Node<'_>) -> Option<Node<'_>> {
    let mut node = redirected.child_by_field_name("body")?;
    if node.kind() != "list" {
        return None;
    }
    while node.kind() == "list" {
        node = last_named_child(node)?;
    }
    Some(node)
}

fn last_named_child(node: Node<'_>) -> Option<Node<'_>> {
    let count = node.named_child_count();
    if count == 0 {
        None
    } else {
        node.named_child((count - 1) as u32)
    }
}

/// The literal command name, if it is a plain word.
pub(crate) fn command_name_bytes<'s>(command: Node<'_>, source: &'s [u8]) -> Option<&'s [u8]> {
    let name = command.child_by_field_name("name")?;
    let word = name.named_child(0)?;
    (word.kind() == "word").then(|| &source[word.start_byte()..word.end_byte()])
}

/// What a command runs, seen through `command`, `builtin`, `time` and `exec` (`command -p echo`,
/// `builtin echo`, `command -- echo`, `time -p echo`, `exec -a x echo`), through quoting of its
/// name (`"echo"`, `\echo`) and through the usual paths of the utilities the analysis reads
/// (`/bin/echo`, `/usr/bin/printf`, `/usr/bin/tee`).
#[derive(Debug, Clone)]
pub(crate) struct Invocation<'t> {
    /// The utility's name: `echo` for all of `echo`, `command echo`, `"echo"` and `/bin/echo`.
    pub name: String,
    /// The word that names it; the utility's arguments are the words after it.
    pub word: Node<'t>,
    /// The utility reads its flags as bash's does, in any script: a program run by its path, or
    /// through `exec`, or through `time` (in sh, `/usr/bin/time`, which runs the program; in
    /// bash, the builtin). GNU echo and bash's echo agree.
    pub external: bool,
    /// Run through `exec`: the shell is replaced, nothing after the command runs.
    pub replaces_shell: bool,
}

impl<'t> Invocation<'t> {
    /// The utility's arguments: the command's words after the one naming it, but the ones
    /// bash reads as a redirection's descriptor (see `names_a_descriptor`).
    pub fn arguments(&self, command: Node<'t>, source: &[u8]) -> Vec<Node<'t>> {
        let mut cursor = command.walk();
        let words: Vec<Node<'t>> = command
            .children_by_field_name("argument", &mut cursor)
            .filter(|arg| arg.start_byte() >= self.word.end_byte())
            .filter(|arg| !names_a_descriptor(*arg, source))
            .collect();
        // `$"…"`, a string bash translates: tree-sitter-bash gives its `$` as a word of its own
        // before the string (or before a word that starts with it, `$"SUCC"ESS`); in the C
        // locale the word is the string.
        words
            .iter()
            .enumerate()
            .filter(|(i, word)| {
                !(word.kind() == "$"
                    && words.get(i + 1).is_some_and(|next| {
                        next.start_byte() == word.end_byte()
                            && (next.kind() == "string"
                                || next.kind() == "concatenation"
                                    && next.child(0).is_some_and(|c| c.kind() == "string"))
                    }))
            })
            .map(|(_, word)| *word)
            .collect()
    }
}

/// A word that runs the command after it: `command`, `builtin`, `time`, `exec`.
const PREFIXES: [&str; 4] = ["command", "builtin", "time", "exec"];

/// Whether `flag` is an option of `prefix` that it reads before the command it runs (`exec -a
/// NAME` is handled apart: it takes a value).
fn prefix_option(prefix: &str, flag: &str) -> bool {
    match prefix {
        "command" | "time" => flag == "-p",
        "exec" => flag.len() > 1 && flag[1..].bytes().all(|b| b == b'c' || b == b'l'),
        _ => false,
    }
}

/// The plain words a command hands on that may name a function it runs: its unquoted literal
/// arguments (`retry 3 finish`, `eval finish`; `time { finish; }` reads as `time` with the
/// arguments `{` and `finish`), at most four.
fn handed_names<'s>(command: Node<'_>, source: &'s [u8]) -> Vec<&'s [u8]> {
    let mut cursor = command.walk();
    command
        .children_by_field_name("argument", &mut cursor)
        .filter(|a| a.kind() == "word")
        .map(|a| &source[a.byte_range()])
        .filter(|w| {
            w.first()
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        })
        .take(4)
        .collect()
}

/// For a command piped straight into a `cat` without files or a `tee` (`finish | cat`,
/// `finish | tee -a log`), which print what they read: that command's node id.
fn piped_into_printer(command: Node<'_>, source: &[u8]) -> Option<usize> {
    let part = command
        .parent()
        .filter(|p| p.kind() == "redirected_statement")
        .unwrap_or(command);
    let pipeline = part.parent().filter(|p| p.kind() == "pipeline")?;
    if pipeline.named_child_count() != 2
        || pipeline.named_child(0).map(|n| n.id()) != Some(part.id())
        || super::redirects::redirects_stdout(command, source)
    {
        return None;
    }
    let printer = pipeline.named_child(1).filter(|n| n.kind() == "command")?;
    let run = invocation(printer, source)?;
    let prints = match run.name.as_str() {
        "tee" => true,
        "cat" => run
            .arguments(printer, source)
            .iter()
            .all(|a| source[a.byte_range()].starts_with(b"-")),
        _ => false,
    };
    prints.then(|| printer.id())
}

/// The name a command calls: after `time`, `command` or `exec`, the word they run (`time
/// finish`); a quoted or expanded name (`"env" echo …`) as written, which no function matches,
/// though what it runs may still print.
fn call_name<'s>(command: Node<'_>, source: &'s [u8]) -> Option<&'s [u8]> {
    let prefixed = command_name_bytes(command, source)
        .is_some_and(|n| PREFIXES.iter().any(|p| p.as_bytes() == n));
    invocation(command, source)
        .filter(|_| prefixed)
        .map(|run| &source[run.word.byte_range()])
        .or_else(|| {
            let name = command_name_bytes(command, source)
                .or_else(|| Some(&source[command.child_by_field_name("name")?.byte_range()]))?;
            Some(unquoted_name(name).unwrap_or(name))
        })
}

/// A quoted or escaped name that bash reads as a plain one (`"ok"`, `'ok'`, `\ok`): the name,
/// which may be a function's (quoting keeps only aliases and keywords from matching).
pub(crate) fn unquoted_name(text: &[u8]) -> Option<&[u8]> {
    let inner = match text {
        [b'"', inner @ .., b'"'] | [b'\'', inner @ .., b'\''] => inner,
        [b'\\', inner @ ..] => inner,
        _ => return None,
    };
    (!inner.is_empty()
        && inner
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':')))
    .then_some(inner)
}

/// The utility a command runs (see [`Invocation`]); `command -v NAME` runs `command` itself.
pub(crate) fn invocation<'t>(command: Node<'t>, source: &[u8]) -> Option<Invocation<'t>> {
    let literal = |n: Node<'_>| super::words::word_value(n, source).as_literal();
    let mut word = command.child_by_field_name("name")?.named_child(0)?;
    let mut name = literal(word)?;
    let mut cursor = command.walk();
    let mut arguments = command
        .children_by_field_name("argument", &mut cursor)
        .peekable();
    // `ec\⏎ho`: tree-sitter-bash splits a name a line continuation runs through into the name
    // and a first argument; bash reads one word.
    while let Some(next) = arguments.next_if(|a| glued(source, word.end_byte(), a.start_byte())) {
        name.push_str(&literal(next)?);
        word = next;
    }
    let (mut through_program, mut replaces_shell) = (false, false);
    while PREFIXES.contains(&name.as_str()) {
        let prefix = std::mem::take(&mut name);
        let mut value_next = false;
        let next = arguments.find(|a| {
            if std::mem::take(&mut value_next) || names_a_descriptor(*a, source) {
                return false;
            }
            match literal(*a).as_deref() {
                Some("--") => false,
                Some("-a") if prefix == "exec" => {
                    value_next = true;
                    false
                }
                Some(flag) => !(flag.starts_with('-') && prefix_option(&prefix, flag)),
                None => true,
            }
        });
        match next.and_then(|a| literal(a).map(|t| (a, t))) {
            Some((inner, utility)) if !utility.starts_with('-') => {
                through_program |= matches!(prefix.as_str(), "time" | "exec");
                replaces_shell |= prefix == "exec";
                (word, name) = (inner, utility);
            }
            _ => {
                name = prefix;
                break;
            }
        }
    }
    let external = ["/bin/", "/usr/bin/"]
        .iter()
        .find_map(|dir| name.strip_prefix(dir))
        .filter(|base| matches!(*base, "echo" | "printf" | "cat" | "tee"))
        .map(str::to_string);
    Some(Invocation {
        external: external.is_some() || through_program,
        name: external.unwrap_or(name),
        word,
        replaces_shell,
    })
}

/// Whether only line continuations (`\⏎`) stand between two offsets: bash joins what is on
/// either side into one word, where tree-sitter-bash reads two.
pub(crate) fn glued(source: &[u8], end: usize, start: usize) -> bool {
    let gap = source.get(end..start).unwrap_or_default();
    !gap.is_empty() && gap.chunks(2).all(|pair| pair == b"\\\n")
}

/// Past the line continuations (`\⏎`) that start at `at`.
pub(crate) fn after_continuations(source: &[u8], mut at: usize) -> usize {
    while source.get(at..at + 2) == Some(b"\\\n") {
        at += 2;
    }
    at
}

/// A word bash reads as the descriptor of the redirection written against it, where
/// tree-sitter-bash gives a word of the command: a number (`echo SUCCESS 0</dev/null`) or a
/// `{NAME}` (`echo SUCCESS {fd}>&1`, which opens a new descriptor and stores it in NAME).
pub(crate) fn names_a_descriptor(word: Node<'_>, source: &[u8]) -> bool {
    let next = after_continuations(source, word.end_byte());
    if !matches!(source.get(next), Some(b'<' | b'>')) {
        return false;
    }
    let text = &source[word.byte_range()];
    is_descriptor_variable(text) || (word.kind() == "number" && text.iter().all(u8::is_ascii_digit))
}

/// `{NAME}`, the word before a redirection that opens a new descriptor and stores it in NAME.
pub(crate) fn is_descriptor_variable(text: &[u8]) -> bool {
    text.strip_prefix(b"{")
        .and_then(|t| t.strip_suffix(b"}"))
        .is_some_and(|name| {
            name.first()
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
                && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        })
}

/// `printf -v VAR …`: the text goes into a variable.
pub(crate) fn assigns_only(command: Node<'_>, source: &[u8]) -> bool {
    invocation(command, source)
        .and_then(|i| i.arguments(command, source).first().copied())
        .is_some_and(|first| source[first.byte_range()].starts_with(b"-v"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_and_exec_run_the_command_after_their_options() {
        let mut parser = crate::analyze::BashParser::new().expect("parser");
        for (script, name, ends_shell) in [
            ("time echo x", "echo", false),
            ("time -p echo x", "echo", false),
            ("exec echo x", "echo", true),
            ("exec -a name echo x", "echo", true),
            ("exec -cl -- printf x", "printf", true),
            ("command exec echo x", "echo", true),
            ("exec -a", "exec", false),
            ("time -o log echo x", "time", false),
        ] {
            let tree = parser.parse(script.as_bytes()).expect("parse");
            let command = tree.root_node().named_child(0).expect("command");
            let run = invocation(command, script.as_bytes()).expect("invocation");
            assert_eq!(
                (run.name.as_str(), run.replaces_shell),
                (name, ends_shell),
                "{script}"
            );
        }
    }

    #[test]
    fn names_are_found_alike_one_by_one_and_with_an_automaton() {
        let source = b"a-a-a x a-a; foo foo_bar barfoo foo\nfoo(){ bar; }\nx=1 y.x z";
        let names: Vec<&[u8]> = vec![b"a-a", b"foo", b"bar", b"x", b"y.x"];
        let padding: Vec<Vec<u8>> = (0..FEW_NAMES)
            .map(|i| format!("unused_{i}").into())
            .collect();
        let many: Vec<&[u8]> = names
            .iter()
            .copied()
            .chain(padding.iter().map(Vec::as_slice))
            .collect();
        assert!(names.len() <= FEW_NAMES && many.len() > FEW_NAMES);
        let sorted = |mut v: Vec<usize>| {
            v.sort_unstable();
            v
        };
        let few = sorted(word_occurrences_of_all(source, &names));
        assert_eq!(few, sorted(word_occurrences_of_all(source, &many)));
        // Overlapping whole words of one name both count: `a-a` at 0 and at 2.
        assert_eq!(&few[..3], &[0, 2, 6]);
        assert!(few.contains(&13) && few.contains(&36) && !few.contains(&17));
    }
}
