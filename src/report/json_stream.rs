//! Pretty JSON documents written piece by piece: arrays get their elements as they come, so a run
//! over 100,000 files never holds its whole report (or its text) in memory.

use std::io::{self, Write};

use serde::Serialize;

/// Write `value` pretty-printed, every line after the first indented by `indent` spaces.
pub(crate) fn write_value(
    out: &mut dyn Write,
    value: &impl Serialize,
    indent: usize,
) -> io::Result<()> {
    let text = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    let pad = vec![b' '; indent];
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
            out.write_all(&pad)?;
        }
        out.write_all(line)?;
    }
    Ok(())
}

/// An array being written one element at a time, at nesting depth `indent` (its elements one
/// level deeper).
pub(crate) struct Array {
    indent: usize,
    count: usize,
}

impl Array {
    /// Write `"key": [` (or `[` with no key) and start the array.
    pub fn open(out: &mut dyn Write, key: Option<&str>, indent: usize) -> io::Result<Array> {
        if let Some(key) = key {
            write_value(out, &key, indent)?;
            out.write_all(b": ")?;
        }
        out.write_all(b"[")?;
        Ok(Array { indent, count: 0 })
    }

    pub fn push(&mut self, out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
        out.write_all(if self.count == 0 { b"\n" } else { b",\n" })?;
        out.write_all(&vec![b' '; self.indent + 2])?;
        write_value(out, value, self.indent + 2)?;
        self.count += 1;
        Ok(())
    }

    pub fn close(self, out: &mut dyn Write) -> io::Result<()> {
        if self.count > 0 {
            out.write_all(b"\n")?;
            out.write_all(&vec![b' '; self.indent])?;
        }
        out.write_all(b"]")
    }
}

/// Write `,\n` and `"key": value` at object depth `indent`.
pub fn field(
    out: &mut dyn Write,
    key: &str,
    value: &impl Serialize,
    indent: usize,
) -> io::Result<()> {
    out.write_all(b",\n")?;
    out.write_all(&vec![b' '; indent])?;
    write_value(out, &key, indent)?;
    out.write_all(b": ")?;
    write_value(out, value, indent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_document_equals_the_whole_one() {
        let mut out = Vec::new();
        out.extend_from_slice(b"{\n  ");
        let mut array = Array::open(&mut out, Some("items"), 2).expect("open");
        for item in [serde_json::json!({"a": [1, 2]}), serde_json::json!("x")] {
            array.push(&mut out, &item).expect("push");
        }
        array.close(&mut out).expect("close");
        out.extend_from_slice(b",\n  ");
        Array::open(&mut out, Some("empty"), 2)
            .and_then(|a| a.close(&mut out))
            .expect("empty");
        field(&mut out, "n", &3, 2).expect("field");
        out.extend_from_slice(b"\n}\n");
        #[derive(Serialize)]
        struct Doc {
            items: Vec<serde_json::Value>,
            empty: Vec<u8>,
            n: u32,
        }
        let whole = Doc {
            items: vec![serde_json::json!({"a": [1, 2]}), serde_json::json!("x")],
            empty: Vec::new(),
            n: 3,
        };
        let text = String::from_utf8(out).expect("utf-8");
        assert_eq!(
            text.trim_end(),
            serde_json::to_string_pretty(&whole).expect("json")
        );
    }
}
