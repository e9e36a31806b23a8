//! Mappings given more than once, merged: `--out x --in x` is `--both x`, and a mapping
//! given twice is carried once.

use crate::Direction;

/// What the merge needs of a bridge's mapping.
pub trait Pair: Clone {
    /// Its ringbus topic, its name on the other side (a Zenoh key expression, a ROS 2 topic
    /// name), and which way its messages go.
    fn parts(&self) -> (&str, &str, Direction);
    /// Carries it the given way instead.
    fn set_direction(&mut self, direction: Direction);
}

/// Mappings as given on the command line, with those of one topic and one remote name
/// merged into one (`--out x --in x` is `--both x`, and a mapping given twice is carried
/// once), in the order first given. Each merged mapping comes with a note that says what
/// was merged (`None`: given once).
pub fn merge<M: Pair>(given: &[M]) -> Vec<(M, Option<String>)> {
    let mut merged: Vec<(M, Vec<Direction>)> = Vec::new();
    for m in given {
        let (topic, remote, direction) = m.parts();
        match merged.iter_mut().find(|(k, _)| k.parts().0 == topic && k.parts().1 == remote) {
            Some((kept, directions)) => {
                kept.set_direction(kept.parts().2.with(direction));
                directions.push(direction);
            }
            None => merged.push((m.clone(), vec![direction])),
        }
    }
    merged.into_iter().map(|(m, directions)| (m.clone(), note(m.parts().2, &directions))).collect()
}

/// What was merged into a mapping now carried `carried`, given as `directions`.
fn note(carried: Direction, directions: &[Direction]) -> Option<String> {
    if directions.len() < 2 {
        return None;
    }
    let mut options: Vec<String> = Vec::new();
    for d in directions {
        let option = format!("--{}", d.name());
        if !options.contains(&option) {
            options.push(option);
        }
    }
    Some(match (options.len(), carried) {
        (1, _) => format!("given {} times as {}: carried once", directions.len(), options[0]),
        (_, Direction::Both) => format!("given as {}: carried once, both ways, as --both", options.join(" and ")),
        _ => format!("given as {}: carried once", options.join(" and ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct M(&'static str, &'static str, Direction);

    impl Pair for M {
        fn parts(&self) -> (&str, &str, Direction) {
            (self.0, self.1, self.2)
        }
        fn set_direction(&mut self, direction: Direction) {
            self.2 = direction;
        }
    }

    #[test]
    fn out_and_in_of_one_pair_merge_into_both_with_a_note() {
        let merged = merge(&[M("x", "a", Direction::Out), M("y", "b", Direction::Out), M("x", "a", Direction::In)]);
        assert_eq!(
            merged[0],
            (M("x", "a", Direction::Both), Some("given as --out and --in: carried once, both ways, as --both".into()))
        );
        assert_eq!(merged[1], (M("y", "b", Direction::Out), None));
    }

    #[test]
    fn a_mapping_given_twice_is_carried_once_and_other_names_stay_apart() {
        let merged = merge(&[M("x", "a", Direction::Out), M("x", "a", Direction::Out), M("x", "b", Direction::In)]);
        assert_eq!(merged[0], (M("x", "a", Direction::Out), Some("given 2 times as --out: carried once".into())));
        assert_eq!(merged[1], (M("x", "b", Direction::In), None));
    }
}
