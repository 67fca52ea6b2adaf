//! Where a script can be cut into chunks of complete top-level statements, found by a small
//! conservative bash lexer (quotes, substitutions, arithmetic, heredocs, comments, compound
//! commands, continuation lines). The analyzer then parses only the chunks that can matter.
//!
//! The lexer errs one way only: it cuts at a line end only when every construct opened so far is
//! closed. Anything it does not model (`$[`, CR line ends, a closer without an opener, an
//! unterminated quote or heredoc) makes it give up, and the caller parses the whole file. A wrong
//! cut that slipped through would split a construct, which tree-sitter then reports as a parse
//! error in the chunk, and the caller again falls back to the whole file.

/// Start offsets of the chunks, in order (the first is 0), or None when the lexer is unsure.
/// Comment-only lines belong to the chunk of the statement after them; trailing ones to the last.
pub fn chunk_starts(source: &[u8]) -> Option<Vec<usize>> {
    if memchr::memchr(b'\r', source).is_some() {
        return None;
    }
    Lexer::new(source).run()
}

/// Counters of one command-level context: the top level, or the inside of `$(…)`.
#[derive(Default)]
struct Code {
    /// Ends at the `)` that matches its `$(`.
    in_substitution: bool,
    paren: u32,
    brace: u32,
    ifs: u32,
    cases: u32,
    loops: u32,
    double_brackets: u32,
}

impl Code {
    fn open(&self) -> bool {
        self.paren + self.brace + self.ifs + self.cases + self.loops + self.double_brackets > 0
    }
}

enum Ctx {
    Code(Code),
    Double,
    Param { depth: u32, in_double: bool },
    Arith { depth: u32 },
}

struct Heredoc {
    delimiter: Vec<u8>,
    strip_tabs: bool,
}

impl Heredoc {
    fn ends_at(&self, line: &[u8]) -> bool {
        let line = if self.strip_tabs {
            &line[line.iter().take_while(|&&b| b == b'\t').count()..]
        } else {
            line
        };
        line == self.delimiter.as_slice()
    }
}

struct Lexer<'a> {
    src: &'a [u8],
    i: usize,
    stack: Vec<Ctx>,
    heredocs: Vec<Heredoc>,
    starts: Vec<usize>,
    /// The next word is in command position (where reserved words count).
    command_start: bool,
    /// The last token was `&&`, `||`, `|` or `|&`: the command goes on after the line end.
    continues: bool,
    /// After `function NAME` or `NAME()`: the body may start on a later line.
    expect_body: bool,
    /// The last token was a plain word in command position (a function name, if `()` follows).
    maybe_function_name: bool,
    /// The current chunk holds something besides comments and blank lines.
    has_code: bool,
}

fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

fn ends_plain_word(b: u8) -> bool {
    is_delimiter(b) || matches!(b, b'\'' | b'"' | b'`' | b'\\' | b'$')
}

impl<'a> Lexer<'a> {
    fn new(src: &'a [u8]) -> Self {
        Lexer {
            src,
            i: 0,
            stack: vec![Ctx::Code(Code::default())],
            heredocs: Vec::new(),
            starts: vec![0],
            command_start: true,
            continues: false,
            expect_body: false,
            maybe_function_name: false,
            has_code: false,
        }
    }

    fn run(mut self) -> Option<Vec<usize>> {
        while self.i < self.src.len() {
            match self.stack.last()? {
                Ctx::Code(_) => self.code()?,
                Ctx::Double => self.double()?,
                Ctx::Param { .. } => self.param()?,
                Ctx::Arith { .. } => self.arith()?,
            }
        }
        let [Ctx::Code(top)] = self.stack.as_slice() else {
            return None;
        };
        if top.open() || !self.heredocs.is_empty() || self.continues || self.expect_body {
            return None;
        }
        if !self.has_code && self.starts.len() > 1 {
            self.starts.pop();
        }
        Some(self.starts)
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.i + ahead).copied()
    }

    fn code_mut(&mut self) -> Option<&mut Code> {
        match self.stack.last_mut()? {
            Ctx::Code(code) => Some(code),
            _ => None,
        }
    }

    /// A token that is not a reserved word, a separator or a redirection.
    fn word_token(&mut self) {
        self.command_start = false;
        self.continues = false;
        self.maybe_function_name = false;
        self.has_code = true;
    }

    fn separator(&mut self, continues: bool) {
        self.command_start = true;
        self.continues = continues;
        self.maybe_function_name = false;
        self.has_code = true;
    }

    fn code(&mut self) -> Option<()> {
        let b = self.src[self.i];
        match b {
            b'\n' => {
                self.i += 1;
                self.newline()?;
            }
            b' ' | b'\t' => self.i += 1,
            b'#' if self.i == 0 || is_delimiter(self.src[self.i - 1]) => {
                self.i = memchr::memchr(b'\n', &self.src[self.i..])
                    .map_or(self.src.len(), |p| self.i + p);
            }
            b'\\' => {
                if self.peek(1) != Some(b'\n') {
                    self.word_token();
                }
                self.i += 2;
            }
            b'\'' => {
                self.word_token();
                self.single_quoted(self.i + 1)?;
            }
            b'"' => {
                self.word_token();
                self.i += 1;
                self.stack.push(Ctx::Double);
            }
            b'`' => {
                self.word_token();
                self.backquoted()?;
            }
            b'$' => {
                self.word_token();
                self.dollar(false)?;
            }
            b'(' => self.open_paren()?,
            b')' => self.close_paren()?,
            b';' => {
                self.i += 1;
                while matches!(self.peek(0), Some(b';' | b'&')) {
                    self.i += 1;
                }
                self.separator(false);
            }
            b'&' => match self.peek(1) {
                Some(b'&') => {
                    self.i += 2;
                    self.separator(true);
                }
                Some(b'>') => {
                    self.i += 1;
                    self.continues = false;
                }
                _ => {
                    self.i += 1;
                    self.separator(false);
                }
            },
            b'|' => {
                self.i += if matches!(self.peek(1), Some(b'|' | b'&')) {
                    2
                } else {
                    1
                };
                self.separator(true);
            }
            b'<' if self.src[self.i..].starts_with(b"<<<") => {
                self.i += 3;
                self.continues = false;
            }
            b'<' if self.peek(1) == Some(b'<') => self.heredoc_operator()?,
            b'<' | b'>' => {
                self.i += 1;
                self.continues = false;
                self.has_code = true;
            }
            _ => self.plain_word()?,
        }
        Some(())
    }

    /// A run of plain bytes: a reserved word when it stands alone in command position.
    fn plain_word(&mut self) -> Option<()> {
        let start = self.i;
        let mut end = start;
        while end < self.src.len() && !ends_plain_word(self.src[end]) {
            end += 1;
        }
        let word = &self.src[start..end];
        let alone = self.src.get(end).is_none_or(|&b| is_delimiter(b));
        self.i = end;
        if word == b"]]" {
            let code = self.code_mut()?;
            if code.double_brackets > 0 {
                code.double_brackets -= 1;
                self.word_token();
                return Some(());
            }
        }
        if !(alone && self.command_start) {
            self.word_token();
            return Some(());
        }
        let (step, command_start): (i8, bool) = match word {
            b"if" | b"case" | b"while" | b"until" | b"for" | b"select" | b"{" | b"[[" => {
                (1, matches!(word, b"if" | b"while" | b"until" | b"{"))
            }
            b"fi" | b"esac" | b"done" | b"}" => (-1, false),
            b"then" | b"else" | b"elif" | b"do" | b"!" | b"time" => (0, true),
            b"function" => {
                self.expect_body = true;
                self.word_token();
                return Some(());
            }
            _ => {
                self.word_token();
                self.maybe_function_name = !word.contains(&b'=');
                return Some(());
            }
        };
        let code = self.code_mut()?;
        let counter = match word {
            b"if" | b"fi" => Some(&mut code.ifs),
            b"case" | b"esac" => Some(&mut code.cases),
            b"while" | b"until" | b"for" | b"select" | b"done" => Some(&mut code.loops),
            b"{" | b"}" => Some(&mut code.brace),
            b"[[" => Some(&mut code.double_brackets),
            _ => None,
        };
        if let Some(counter) = counter {
            *counter = if step > 0 {
                *counter + 1
            } else {
                counter.checked_sub(1)?
            };
        }
        if step > 0 {
            self.expect_body = false;
        }
        self.word_token();
        self.command_start = command_start;
        Some(())
    }

    fn open_paren(&mut self) -> Option<()> {
        if self.peek(1) == Some(b'(') {
            self.word_token();
            self.i += 2;
            self.stack.push(Ctx::Arith { depth: 0 });
            return Some(());
        }
        if self.maybe_function_name || self.expect_body {
            let rest = &self.src[self.i + 1..];
            let spaces = rest
                .iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
            if rest.get(spaces) == Some(&b')') {
                self.i += spaces + 2;
                self.expect_body = true;
                self.maybe_function_name = false;
                self.command_start = true;
                self.has_code = true;
                return Some(());
            }
        }
        self.i += 1;
        let code = self.code_mut()?;
        if code.cases == 0 {
            code.paren += 1;
        }
        self.expect_body = false;
        self.separator(false);
        Some(())
    }

    fn close_paren(&mut self) -> Option<()> {
        self.i += 1;
        let code = self.code_mut()?;
        if code.cases > 0 {
            // A case pattern's `)`; parentheses inside a case are not counted.
        } else if code.paren > 0 {
            code.paren -= 1;
        } else if code.in_substitution {
            if code.open() {
                return None;
            }
            self.stack.pop();
            self.word_token();
            return Some(());
        } else {
            return None;
        }
        self.separator(false);
        self.continues = false;
        Some(())
    }

    /// After `$`: a substitution, expansion or quoting that opens a context, or a plain `$`.
    fn dollar(&mut self, in_double: bool) -> Option<()> {
        match self.peek(1) {
            Some(b'(') if self.peek(2) == Some(b'(') => {
                self.i += 3;
                self.stack.push(Ctx::Arith { depth: 0 });
            }
            Some(b'(') => {
                self.i += 2;
                self.stack.push(Ctx::Code(Code {
                    in_substitution: true,
                    ..Code::default()
                }));
                self.command_start = true;
            }
            Some(b'{') => {
                self.i += 2;
                self.stack.push(Ctx::Param {
                    depth: 0,
                    in_double,
                });
            }
            Some(b'\'') if !in_double => self.ansi_c_quoted()?,
            Some(b'"') if !in_double => {
                self.i += 2;
                self.stack.push(Ctx::Double);
            }
            Some(b'[') => return None,
            _ => self.i += 1,
        }
        Some(())
    }

    fn double(&mut self) -> Option<()> {
        let rest = &self.src[self.i..];
        // A backquote counts only before the next `"`, `\\` or `$`: searching the whole rest of
        // the file for one at every string would be quadratic.
        let special = memchr::memchr3(b'"', b'\\', b'$', rest);
        let at = memchr::memchr(b'`', &rest[..special.unwrap_or(rest.len())]).or(special)?;
        self.i += at;
        match self.src[self.i] {
            b'"' => {
                self.i += 1;
                self.stack.pop();
            }
            b'\\' => self.i += 2,
            b'$' => self.dollar(true)?,
            _ => self.backquoted()?,
        }
        Some(())
    }

    fn param(&mut self) -> Option<()> {
        let Some(Ctx::Param { depth, in_double }) = self.stack.last_mut() else {
            return None;
        };
        let in_double = *in_double;
        match self.src[self.i] {
            b'}' if *depth == 0 => {
                self.i += 1;
                self.stack.pop();
            }
            b'}' => {
                *depth -= 1;
                self.i += 1;
            }
            b'{' => {
                *depth += 1;
                self.i += 1;
            }
            b'\\' => self.i += 2,
            b'"' => {
                self.i += 1;
                self.stack.push(Ctx::Double);
            }
            b'\'' if !in_double => self.single_quoted(self.i + 1)?,
            b'$' => self.dollar(in_double)?,
            b'`' => self.backquoted()?,
            _ => self.i += 1,
        }
        Some(())
    }

    fn arith(&mut self) -> Option<()> {
        let Some(Ctx::Arith { depth }) = self.stack.last_mut() else {
            return None;
        };
        match self.src[self.i] {
            b'(' => {
                *depth += 1;
                self.i += 1;
            }
            b')' if *depth > 0 => {
                *depth -= 1;
                self.i += 1;
            }
            b')' if self.peek(1) == Some(b')') => {
                self.i += 2;
                self.stack.pop();
            }
            b')' => return None,
            b'\\' => self.i += 2,
            b'"' => {
                self.i += 1;
                self.stack.push(Ctx::Double);
            }
            b'\'' => self.single_quoted(self.i + 1)?,
            b'$' => self.dollar(false)?,
            b'`' => self.backquoted()?,
            _ => self.i += 1,
        }
        Some(())
    }

    /// Skip a '…' string whose text starts at `from`.
    fn single_quoted(&mut self, from: usize) -> Option<()> {
        let close = memchr::memchr(b'\'', self.src.get(from..)?)?;
        self.i = from + close + 1;
        Some(())
    }

    /// Skip a $'…' string, where backslash escapes the quote.
    fn ansi_c_quoted(&mut self) -> Option<()> {
        let mut j = self.i + 2;
        loop {
            match self.src.get(j)? {
                b'\\' => j += 2,
                b'\'' => break,
                _ => j += 1,
            }
        }
        self.i = j + 1;
        Some(())
    }

    /// Skip a `…` command substitution; one holding a heredoc is beyond this lexer.
    fn backquoted(&mut self) -> Option<()> {
        let mut j = self.i + 1;
        loop {
            match self.src.get(j)? {
                b'\\' => j += 2,
                b'`' => break,
                b'<' if self.src.get(j + 1) == Some(&b'<') => return None,
                _ => j += 1,
            }
        }
        self.i = j + 1;
        Some(())
    }

    fn heredoc_operator(&mut self) -> Option<()> {
        self.i += 2;
        let strip_tabs = self.peek(0) == Some(b'-');
        if strip_tabs {
            self.i += 1;
        }
        while matches!(self.peek(0), Some(b' ' | b'\t')) {
            self.i += 1;
        }
        let mut delimiter = Vec::new();
        while let Some(b) = self.peek(0) {
            match b {
                b'\'' | b'"' => {
                    let close = memchr::memchr(b, &self.src[self.i + 1..])?;
                    delimiter.extend_from_slice(&self.src[self.i + 1..self.i + 1 + close]);
                    self.i += close + 2;
                }
                b'\\' => {
                    delimiter.push(self.peek(1)?);
                    self.i += 2;
                }
                b'$' | b'`' => return None,
                b if is_delimiter(b) => break,
                b => {
                    delimiter.push(b);
                    self.i += 1;
                }
            }
        }
        if delimiter.is_empty() {
            return None;
        }
        self.heredocs.push(Heredoc {
            delimiter,
            strip_tabs,
        });
        self.continues = false;
        self.has_code = true;
        Some(())
    }

    /// At the start of the line after a line end in command context.
    fn newline(&mut self) -> Option<()> {
        for doc in std::mem::take(&mut self.heredocs) {
            loop {
                if self.i >= self.src.len() {
                    return None;
                }
                let end = memchr::memchr(b'\n', &self.src[self.i..])
                    .map_or(self.src.len(), |p| self.i + p);
                let line = &self.src[self.i..end];
                self.i = (end + 1).min(self.src.len());
                if doc.ends_at(line) {
                    break;
                }
            }
        }
        let at_top = matches!(self.stack.as_slice(), [Ctx::Code(code)] if !code.open());
        if at_top && self.has_code && !self.continues && !self.expect_body {
            self.starts.push(self.i);
            self.has_code = false;
        }
        self.command_start = true;
        self.maybe_function_name = false;
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::chunk_starts;

    /// The chunks' texts.
    fn chunks(source: &str) -> Option<Vec<&str>> {
        let starts = chunk_starts(source.as_bytes())?;
        let ends = starts.iter().skip(1).copied().chain([source.len()]);
        Some(
            starts
                .iter()
                .zip(ends)
                .map(|(&s, e)| &source[s..e])
                .collect(),
        )
    }

    #[test]
    fn simple_statements_are_one_chunk_each() {
        assert_eq!(
            chunks("a=1\necho \"x\"\nexit 0\n"),
            Some(vec!["a=1\n", "echo \"x\"\n", "exit 0\n"])
        );
    }

    #[test]
    fn comments_go_with_the_statement_after_them_and_trailing_ones_with_the_last() {
        assert_eq!(
            chunks("#!/bin/bash\n# hi\nls\n# c\npwd\n\n# end\n"),
            Some(vec!["#!/bin/bash\n# hi\nls\n", "# c\npwd\n\n# end\n"])
        );
    }

    #[test]
    fn compound_commands_stay_whole() {
        let src = "if a; then\n  b\nfi\nfor x in 1; do\n  y\ndone\ncase $m in\n  a) b;;\n  (c) d;;\nesac\nf() {\n  g\n}\nwhile true\ndo :; done\n";
        assert_eq!(
            chunks(src),
            Some(vec![
                "if a; then\n  b\nfi\n",
                "for x in 1; do\n  y\ndone\n",
                "case $m in\n  a) b;;\n  (c) d;;\nesac\n",
                "f() {\n  g\n}\n",
                "while true\ndo :; done\n",
            ])
        );
    }

    #[test]
    fn function_body_on_the_next_line_stays_with_its_name() {
        assert_eq!(
            chunks("f()\n{\n  :\n}\nfunction g\n{ :; }\nfunction h()\n{ :; }\n"),
            Some(vec![
                "f()\n{\n  :\n}\n",
                "function g\n{ :; }\n",
                "function h()\n{ :; }\n"
            ])
        );
    }

    #[test]
    fn strings_substitutions_and_continuations_span_lines() {
        let src =
            "x=\"a\nb\"\ny=$(\n  ls\n)\nz='q\nr'\nls \\\n  -l\na &&\n  b\nc |\n d\narr=(\n 1\n)\n";
        assert_eq!(
            chunks(src),
            Some(vec![
                "x=\"a\nb\"\n",
                "y=$(\n  ls\n)\n",
                "z='q\nr'\n",
                "ls \\\n  -l\n",
                "a &&\n  b\n",
                "c |\n d\n",
                "arr=(\n 1\n)\n",
            ])
        );
    }

    #[test]
    fn heredoc_bodies_belong_to_their_command() {
        let src = "cat <<EOF\nfi\n)\nEOF\ncat <<-'X' <<Y\n\tbody\n\tX\ny\nY\nls\n";
        assert_eq!(
            chunks(src),
            Some(vec![
                "cat <<EOF\nfi\n)\nEOF\n",
                "cat <<-'X' <<Y\n\tbody\n\tX\ny\nY\n",
                "ls\n"
            ])
        );
    }

    #[test]
    fn reserved_words_count_only_in_command_position() {
        assert_eq!(
            chunks("echo fi done }\nx=$(case a in a) echo esac;; esac)\n"),
            Some(vec![
                "echo fi done }\n",
                "x=$(case a in a) echo esac;; esac)\n"
            ])
        );
    }

    #[test]
    fn arithmetic_and_expansions_are_not_comments_or_heredocs() {
        assert_eq!(
            chunks("n=$((1<<2 # 3))\nm=${#x}\n((y = n<<1))\necho $# ${a#b}\n"),
            Some(vec![
                "n=$((1<<2 # 3))\n",
                "m=${#x}\n",
                "((y = n<<1))\n",
                "echo $# ${a#b}\n"
            ])
        );
    }

    #[test]
    fn the_lexer_gives_up_on_what_it_does_not_model() {
        for src in [
            "x=\"open\n",
            "cat <<EOF\nno end\n",
            "echo $[1+2]\n",
            "fi\n",
            "a\r\nb\r\n",
            "if a; then\n",
            "a &&\n",
            "x=`cat <<EOF\nEOF\n`\n",
            "case x in\n  fi) :;;\nesac\n",
        ] {
            assert_eq!(chunks(src), None, "{src:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_input_gives_ordered_cuts_inside_the_file_or_none(
            text in "[ \\t\\n;&|()<>{}'\"`$\\\\#a-z=!\\[\\]-]{0,200}"
        ) {
            if let Some(starts) = chunk_starts(text.as_bytes()) {
                proptest::prop_assert_eq!(starts.first(), Some(&0));
                proptest::prop_assert!(starts.windows(2).all(|w| w[0] < w[1]));
                proptest::prop_assert!(starts.iter().all(|&s| s <= text.len()));
            }
        }
    }
}
