//! Enums whose variants each have one name: the value an option takes on the command
//! line, the label in the table and the string in JSON.

/// Defines an enum whose variants have names, with `ALL` (in declaration order), `name()`,
/// `Display`, `FromStr` (naming the choices when a name is unknown) and serde as the name:
///
/// ```text
/// named! {
///     /// How workers share their tokens.
///     pub enum Mechanism("mechanism") { Pipe = "pipe", Semaphore = "semaphore", }
/// }
/// ```
macro_rules! named {
    ($(#[$meta:meta])* pub enum $name:ident($what:literal) {
        $($(#[$variant_meta:meta])* $variant:ident = $text:literal,)+
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$variant_meta])* $variant,)+
        }

        impl $name {
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];

            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<$name, String> {
                $name::ALL.into_iter().find(|v| v.name() == s).ok_or_else(|| {
                    let names: Vec<&str> = $name::ALL.iter().map(|v| v.name()).collect();
                    format!("unknown {} {s:?}; choose from {}", $what, names.join(", "))
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                String::deserialize(deserializer)?.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

pub(crate) use named;

#[cfg(test)]
mod tests {
    named! {
        /// Two test variants.
        pub enum Kind("kind") {
            /// The first.
            OneTwo = "one-two",
            Three = "three",
        }
    }

    #[test]
    fn names_parse_print_and_serialize_alike() {
        assert_eq!(Kind::ALL, [Kind::OneTwo, Kind::Three]);
        for k in Kind::ALL {
            assert_eq!(k.name().parse::<Kind>(), Ok(k));
            assert_eq!(k.to_string(), k.name());
            assert_eq!(serde_json::to_value(k).unwrap(), k.name());
            assert_eq!(serde_json::from_value::<Kind>(k.name().into()).unwrap(), k);
        }
        assert_eq!("four".parse::<Kind>(), Err(r#"unknown kind "four"; choose from one-two, three"#.to_string()));
        assert!(serde_json::from_value::<Kind>("four".into()).is_err());
        assert!(Kind::OneTwo < Kind::Three, "ordered as declared");
    }
}
