//! Which way a mapping carries messages.

/// Which way messages go between a ringbus topic and its name on the other side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// ringbus → the other side (`--out`): what is published on the topic here is sent.
    Out,
    /// The other side → ringbus (`--in`): what is received is published on the topic here.
    In,
    /// Both ways (`--both`); what the bridge itself publishes here is never sent back out.
    Both,
}

impl Direction {
    /// Whether messages go ringbus → the other side.
    pub fn outgoing(self) -> bool {
        matches!(self, Direction::Out | Direction::Both)
    }

    /// Whether messages go the other side → ringbus.
    pub fn incoming(self) -> bool {
        matches!(self, Direction::In | Direction::Both)
    }

    /// The command-line option of this direction, without the dashes.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Out => "out",
            Direction::In => "in",
            Direction::Both => "both",
        }
    }

    /// How a mapping of this direction is shown between its two names: `->`, `<-`, `<->`.
    pub fn arrow(self) -> &'static str {
        match self {
            Direction::Out => "->",
            Direction::In => "<-",
            Direction::Both => "<->",
        }
    }

    /// Both directions' messages: what `self` and `other` carry together.
    pub(crate) fn with(self, other: Direction) -> Direction {
        if self == other {
            self
        } else {
            Direction::Both
        }
    }
}
