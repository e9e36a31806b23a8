//! The layer diagram in `src/lib.rs` is true: every module of the crate uses only modules
//! of lower layers. Reads the sources as text: each `crate::<module>` path, and each
//! `crate::<Name>` that `lib.rs` re-exports from a module, outside comments.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The diagram's rows: `N  module module ...  description`, between the "# Layers"
/// heading and the end of its text block.
fn layers(lib: &str) -> BTreeMap<String, u32> {
    let block = lib.split("# Layers").nth(1).expect("lib.rs has a # Layers section");
    let block = block.split("```text").nth(1).expect("the layers are a text block").split("```").next().unwrap();
    let mut layers = BTreeMap::new();
    for line in block.lines().map(|l| l.trim_start_matches("//!").trim()).filter(|l| !l.is_empty()) {
        let (number, rest) = line.split_once(' ').expect("a row starts with its layer number");
        let layer: u32 = number.parse().unwrap_or_else(|_| panic!("layer number in {line:?}"));
        let modules = rest.trim_start().split("  ").next().unwrap();
        for module in modules.split(' ') {
            assert!(layers.insert(module.to_string(), layer).is_none(), "{module} is in two layers");
        }
    }
    layers
}

/// Names `lib.rs` re-exports, and the module each comes from (`pub use pubsub::{A, B};`).
fn re_exports(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    let code: String = lib.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    for statement in code.split("pub use ").skip(1) {
        let statement = statement.split(';').next().unwrap();
        let module = statement.split("::").next().unwrap().trim().to_string();
        let last = statement.rsplit("::").next().unwrap();
        for name in last.trim_matches(|c: char| c == '{' || c == '}' || c.is_whitespace()).split(',') {
            let name = name.trim();
            if !name.is_empty() {
                names.insert(name.to_string(), module.clone());
            }
        }
    }
    names
}

/// The top-level module a source file belongs to (`pubsub/view.rs` → `pubsub`).
fn module_of(file: &Path) -> String {
    let relative = file.strip_prefix(src()).unwrap();
    let first = relative.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether `super::` in `file` is the crate root (a file beside lib.rs, or a `mod.rs` one
/// folder down).
fn super_is_root(file: &Path) -> bool {
    let depth = file.strip_prefix(src()).unwrap().components().count();
    depth == 1 || (depth == 2 && file.file_name().unwrap() == "mod.rs")
}

/// Every `X` in `<prefix>X` in the code of `text` (comments left out), and every `X`
/// inside a `use <prefix>{X, ...}` group.
fn paths_after(text: &str, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines().map(|l| l.split("//").next().unwrap()) {
        for after in line.split(prefix).skip(1) {
            if let Some(group) = after.strip_prefix('{') {
                let group = group.split('}').next().unwrap();
                found.extend(group.split(',').map(|p| p.trim().split("::").next().unwrap().to_string()));
            } else {
                let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                found.push(name);
            }
        }
    }
    found.retain(|n| !n.is_empty());
    found
}

/// What a file names through `crate::` (all of it must resolve) and, where `super::` is
/// the crate root, through `super::` (what does not resolve there is the file's own item,
/// used from a `mod tests` inside it).
fn crate_paths(text: &str, super_is_root: bool) -> (Vec<String>, Vec<String>) {
    (paths_after(text, "crate::"), if super_is_root { paths_after(text, "super::") } else { Vec::new() })
}

/// What `crate::X` names: a module of the diagram, or the module a re-export comes from.
fn target(name: &str, layers: &BTreeMap<String, u32>, re_exports: &BTreeMap<String, String>) -> Option<String> {
    if layers.contains_key(name) {
        return Some(name.to_string());
    }
    re_exports.get(name).cloned()
}

#[test]
fn every_module_uses_only_lower_layers() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let layers = layers(&lib);
    let re_exports = re_exports(&lib);
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut broken = Vec::new();
    for file in files.iter().filter(|f| f.file_name().unwrap() != "lib.rs") {
        let module = module_of(file);
        let Some(&own) = layers.get(&module) else {
            broken.push(format!("{}: module {module} is not in the layer diagram of lib.rs", file.display()));
            continue;
        };
        let (through_crate, through_super) = crate_paths(&std::fs::read_to_string(file).unwrap(), super_is_root(file));
        let resolved = through_super.iter().filter_map(|n| target(n, &layers, &re_exports).map(|t| (n.clone(), t)));
        let mut uses: Vec<(String, String)> = resolved.collect();
        for name in through_crate {
            let Some(used) = target(&name, &layers, &re_exports) else {
                broken.push(format!(
                    "{}: crate::{name} is neither a module of the diagram nor a re-export",
                    file.display()
                ));
                continue;
            };
            uses.push((name, used));
        }
        for (name, used) in uses {
            let layer = layers[&used];
            if used != module && layer >= own {
                broken.push(format!(
                    "{}: {module} (layer {own}) uses crate::{name} from {used} (layer {layer})",
                    file.display()
                ));
            }
        }
    }
    broken.sort();
    broken.dedup();
    assert!(broken.is_empty(), "imports that break the layers of lib.rs:\n{}", broken.join("\n"));
}

#[test]
fn the_check_sees_a_use_that_goes_up() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let (layers, re_exports) = (layers(&lib), re_exports(&lib));
    let (used, _) =
        crate_paths("use crate::pubsub::Wake;\nuse crate::{sync::AtomicU32, Subscriber};\n// crate::waitset", false);
    assert_eq!(used, ["pubsub", "sync", "Subscriber"]);
    assert_eq!(crate_paths("use super::shm::Root;", true).1, ["shm"]);
    assert!(crate_paths("use super::shm::Root;", false).1.is_empty());
    assert_eq!(target("Subscriber", &layers, &re_exports).as_deref(), Some("pubsub"));
    assert!(layers["pubsub"] > layers["shm"] && layers["shm"] > layers["sync"], "{layers:?}");
    assert!(layers.contains_key("sys") && layers.contains_key("executor"), "{layers:?}");
}
