//! The packages agree with each other: one version in Cargo.toml, the npm launcher and its
//! platform packages, the pre-commit placeholder's pin and the Action's default; the launcher
//! has no install script and knows every platform package it depends on; the wheel is the binary
//! alone. (scripts/package.sh builds them; tests/package and tests/action install and run them.)

use std::path::Path;

use serde_json::Value;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect(path)
}

#[test]
fn every_package_carries_the_crate_version() {
    let version = env!("CARGO_PKG_VERSION");
    let launcher: Value = serde_json::from_str(&read("npm/skillmod/package.json")).expect("json");
    assert_eq!(launcher["version"], version);
    let optional = launcher["optionalDependencies"]
        .as_object()
        .expect("optional deps");
    assert_eq!(optional.len(), 7, "one platform package per release target");
    for (name, pinned) in optional {
        assert_eq!(pinned, version, "{name}");
    }
    let placeholder = read("pyproject.toml");
    assert!(
        placeholder.contains(&format!("version = \"{version}\"")),
        "{placeholder}"
    );
    assert!(placeholder.contains(&format!("dependencies = [\"skillmod=={version}\"]")));
    let action = read("action.yml");
    assert!(
        action.contains(&format!("default: \"{version}\"")),
        "action.yml's version"
    );
}

#[test]
fn the_launcher_has_no_install_script_and_knows_each_platform_package() {
    let launcher: Value = serde_json::from_str(&read("npm/skillmod/package.json")).expect("json");
    assert!(
        launcher.get("scripts").is_none(),
        "no postinstall (pnpm 10 skips them)"
    );
    let script = read("npm/skillmod/bin/skillmod.js");
    for name in launcher["optionalDependencies"]
        .as_object()
        .expect("deps")
        .keys()
    {
        assert!(
            script.contains(&format!("\"{name}\"")),
            "{name} missing in the launcher"
        );
    }
}

#[test]
fn the_wheel_is_the_binary_and_built_outside_the_root() {
    let wheel = read("python/pyproject.toml");
    for line in [
        "bindings = \"bin\"",
        "manifest-path = \"../Cargo.toml\"",
        "strip = true",
    ] {
        assert!(wheel.contains(line), "python/pyproject.toml lacks {line}");
    }
    // A maturin project at the root would make pre-commit compile the hooks (typos#682).
    assert!(!read("pyproject.toml").contains("build-backend = \"maturin\""));
    let hooks = read(".pre-commit-hooks.yaml");
    for (id, language) in [
        ("skillmod-check", "python"),
        ("skillmod-migrate", "python"),
        ("skillmod-check-src", "rust"),
        ("skillmod-migrate-src", "rust"),
    ] {
        let block = hooks
            .split("- id: ")
            .find(|b| b.lines().next() == Some(id))
            .unwrap_or_else(|| panic!("no hook {id}"));
        assert!(block.contains(&format!("language: {language}")), "{id}");
    }
}
