//! Every shared-memory layout of this crate is tied to [`LAYOUT_VERSION`]: the sizes and
//! offsets each layout module reports (and the offsets a sample configuration gets) are
//! fingerprinted, and the fingerprint must be the one recorded for the current version.
//! Change a layout and this fails until the version is bumped and its fingerprint added
//! to [`RECORDED`] — never edit a recorded line. (A change of what a field *means*, with
//! the same offsets, needs a bump too; no test can see that.)

use super::header::LAYOUT_VERSION;

/// `(layout version, fingerprint)`, one line per version since fingerprints were kept.
const RECORDED: &[(u32, u64)] = &[(7, 0x22d3_4d54_6edc_40e3), (8, 0xa4a7_ea3d_9a31_e6aa), (9, 0xe01b_3876_e4db_0222)];

/// Every layout fact of the crate, by owner.
fn facts() -> Vec<(&'static str, u64)> {
    [
        super::header::layout_facts(),
        super::topic::layout_facts(),
        super::publisher::layout_facts(),
        super::log_entry::layout_facts(),
        super::queue::layout_facts(),
        super::latch_semaphore::layout_facts(),
        super::node::layout_facts(),
    ]
    .concat()
}

/// FNV-1a over the names and values: stable across Rust versions and platforms (unlike
/// the standard library's hasher).
fn fingerprint(facts: &[(&str, u64)]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, value) in facts {
        for byte in name.bytes().chain(value.to_le_bytes()) {
            hash = (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

#[test]
fn the_layouts_are_those_of_the_layout_version() {
    let facts = facts();
    let found = fingerprint(&facts);
    let recorded = RECORDED.iter().find(|(v, _)| *v == LAYOUT_VERSION).map(|(_, f)| *f);
    assert_eq!(
        recorded,
        Some(found),
        "the shared-memory layouts changed (fingerprint {found:#018x}) but LAYOUT_VERSION is still \
         {LAYOUT_VERSION}: bump it in shm/header.rs and add ({}, {found:#018x}) to RECORDED. Facts: {facts:?}",
        LAYOUT_VERSION + 1,
    );
}

#[test]
fn each_version_is_recorded_once_and_facts_are_named_once() {
    let mut versions: Vec<u32> = RECORDED.iter().map(|(v, _)| *v).collect();
    versions.dedup();
    assert_eq!(versions.len(), RECORDED.len(), "a version recorded twice");
    let mut names: Vec<&str> = facts().iter().map(|(n, _)| *n).collect();
    names.sort();
    let before = names.len();
    names.dedup();
    assert_eq!(names.len(), before, "two facts share a name");
}

#[test]
fn the_fingerprint_sees_a_moved_field() {
    let mut facts = facts();
    let before = fingerprint(&facts);
    facts[3].1 += 4;
    assert_ne!(fingerprint(&facts), before);
}
