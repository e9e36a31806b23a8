//! Payload types given at run time (what the C and C++ bindings use): a Rust program
//! joins a topic typed by another language with its own type under that name, typed loans
//! work from such a handle, and every other name, size or alignment is refused at open.

mod common;

use common::TestRoot;
use ringbus::{LoanError, OpenError};

#[test]
fn a_rust_type_joins_a_topic_typed_by_name_and_loans_it() {
    let root = TestRoot::new();
    let node = root.node("test");
    let mut other = node.topic("pose").payload_type_named("geometry.Pose", 16, 8).subscriber().unwrap();
    let mut publisher = node.topic("pose").payload_type_as::<[f64; 2]>("geometry.Pose").publisher().unwrap();
    let mut loan = publisher.loan_value::<[f64; 2]>().unwrap();
    *loan.value_mut::<[f64; 2]>().unwrap() = [1.5, -2.0];
    loan.publish();
    assert_eq!(other.take().unwrap().unwrap().value::<[f64; 2]>().unwrap(), &[1.5, -2.0]);
    // A loan of another layout is refused even under the declared name.
    assert!(matches!(publisher.loan_value::<[f32; 2]>(), Err(LoanError::TypeMismatch { .. })));
}

#[test]
fn another_name_size_or_alignment_is_refused_and_bad_values_are_invalid() {
    let root = TestRoot::new();
    let node = root.node("test");
    let _first = node.topic("pose").payload_type_named("geometry.Pose", 16, 8).subscriber().unwrap();
    let mismatch = |r: Result<ringbus::Subscriber, OpenError>| match r {
        Err(OpenError::TypeMismatch { existing, requested, .. }) => format!("{existing} / {requested}"),
        other => panic!("expected a type mismatch, got {:?}", other.map(|_| ())),
    };
    let named = |name: &str, size, align| node.topic("pose").payload_type_named(name, size, align).subscriber();
    assert_eq!(
        mismatch(named("geometry.Point", 16, 8)),
        "geometry.Pose (size 16, align 8) / geometry.Point (size 16, align 8)"
    );
    assert!(mismatch(named("geometry.Pose", 24, 8)).ends_with("(size 24, align 8)"));
    assert!(mismatch(named("geometry.Pose", 16, 16)).ends_with("(size 16, align 16)"));
    // Rust's own name of a type of the same layout is another name.
    assert!(
        mismatch(node.topic("pose").payload_type::<[f64; 2]>().subscriber()).ends_with("[f64; 2] (size 16, align 8)")
    );
    for (name, size, align, field) in [
        ("", 16, 8, "payload type name length"),
        ("p", 0, 1, "payload type size"),
        ("p", 16, 3, "payload type alignment"),
        ("p", 16, 8192, "payload type alignment"),
    ] {
        match node.topic("fresh").payload_type_named(name, size, align).publisher() {
            Err(OpenError::InvalidConfig { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{name:?} {size} {align}: {:?}", other.map(|_| ())),
        }
    }
}
