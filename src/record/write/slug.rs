//! Safe file-name slugs: ASCII, lowercase, at most 60 characters, never a path; cut at a
//! word, keeping the words of the options a question names.

const MAX: usize = 60;
/// Most of a slug the kept option words may take, so the question's start still reads.
const KEPT_MAX: usize = MAX / 2;

/// `"Redis or Postgres? (für Caching)"` → `"redis-or-postgres-fur-caching"`.
pub fn slug(title: &str) -> String {
    naming(title, &[])
}

/// The slug of `title` that keeps the words of `options` a cut at 60 characters would
/// lose, after as much of the title's start as leaves them room: of those words, the
/// names the title writes with a capital or a digit ("CockroachDB", "S3"), else all
/// of them. "should-we-migrate-the-orders-services-postgres-cockroachdb", not
/// "…-database-from-postgres-to", where CockroachDB is what the question is about.
pub fn naming(title: &str, options: &[String]) -> String {
    let title_words = words(title);
    let whole = join(title_words.iter().map(|word| word.text.as_str()));
    if whole.len() <= MAX {
        return named_or_default(whole);
    }
    let cut = fitting(&title_words, MAX);
    let named: Vec<String> = options.iter().flat_map(|option| words(option)).map(|word| word.text).collect();
    let mut lost: Vec<&Word> = Vec::new();
    for word in &title_words[cut..] {
        let kept_already = title_words[..cut].iter().chain(lost.iter().copied()).any(|w| w.text == word.text);
        if named.contains(&word.text) && !kept_already {
            lost.push(word);
        }
    }
    let names: Vec<&Word> = lost.iter().copied().filter(|word| word.name).collect();
    let candidates = if names.is_empty() { lost } else { names };
    // The words nearest the title's end first, where a question names its options.
    let mut kept: Vec<&str> = Vec::new();
    for word in candidates.into_iter().rev() {
        if join(kept.iter().copied().chain([word.text.as_str()])).len() <= KEPT_MAX {
            kept.insert(0, &word.text);
        }
    }
    let room = if kept.is_empty() { MAX } else { MAX - join(kept.iter().copied()).len() - 1 };
    let head = join(title_words[..fitting(&title_words, room)].iter().map(|word| word.text.as_str()));
    // A first word too long to cut at: cut inside it rather than keep next to nothing.
    let head = match head.len() < room / 2 {
        true => whole[..room].trim_end_matches('-').to_string(),
        false => head,
    };
    named_or_default(join([head.as_str()].into_iter().chain(kept).filter(|word| !word.is_empty())))
}

/// A word of a slug, and whether the text wrote it as a name.
struct Word {
    text: String,
    name: bool,
}

/// The ASCII, lowercase words of `text`: letters and digits, anything else a break but
/// an apostrophe ("service's" is one word).
fn words(text: &str) -> Vec<Word> {
    deunicode::deunicode(text)
        .replace('\'', "")
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(|word| Word {
            text: word.to_ascii_lowercase(),
            name: word.chars().any(|c| c.is_ascii_uppercase() || c.is_ascii_digit()),
        })
        .collect()
}

fn join<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    words.into_iter().collect::<Vec<_>>().join("-")
}

/// How many of the leading `words` fit in `room` characters, joined by `-`.
fn fitting(words: &[Word], room: usize) -> usize {
    let mut length = 0;
    words
        .iter()
        .take_while(|word| {
            length += word.text.len() + usize::from(length > 0);
            length <= room
        })
        .count()
}

fn named_or_default(slug: String) -> String {
    if slug.is_empty() { "decision".into() } else { slug }
}

#[cfg(test)]
mod tests {
    use super::{naming, slug};
    use proptest::prelude::*;

    #[test]
    fn typical_titles() {
        assert_eq!(slug("Should we use Redis or Postgres for caching"), "should-we-use-redis-or-postgres-for-caching");
        assert_eq!(slug("Ünïcödé — café & crème"), "unicode-cafe-creme");
        assert_eq!(slug("../../etc/passwd"), "etc-passwd");
        assert_eq!(slug("🚀🔥"), "rocket-fire");
        assert_eq!(slug("???"), "decision");
        assert_eq!(slug(""), "decision");
    }

    #[test]
    fn long_titles_are_cut_at_a_word() {
        let s = slug(&"word ".repeat(100));
        assert!(s.len() <= 60 && !s.ends_with('-'), "{s}");
        let title = "Should we migrate the orders service's primary database from Postgres to CockroachDB";
        assert_eq!(slug(title), "should-we-migrate-the-orders-services-primary-database-from");
        assert_eq!(slug(&format!("a {}", "x".repeat(80))), format!("a-{}", "x".repeat(58)), "no word to cut at");
    }

    #[test]
    fn the_options_the_question_names_are_kept() {
        let title = "Should we migrate the orders service's primary database from Postgres to CockroachDB";
        let options =
            ["Migrate the orders service's primary database from Postgres to CockroachDB", "Keep what we have"];
        let options = options.map(String::from);
        assert_eq!(naming(title, &options), "should-we-migrate-the-orders-services-postgres-cockroachdb");
        let lowercase = ["an append-only file".to_string(), "periodic snapshots".to_string()];
        let title = "Should the session store of the checkout service persist its data with an append-only file or periodic snapshots";
        let slug = naming(title, &lowercase);
        assert!(slug.starts_with("should-the-session-store") && slug.ends_with("-file-periodic-snapshots"), "{slug}");
        assert!(slug.len() <= 60, "{slug}");
        let named = ["Kafka".to_string(), "RabbitMQ".to_string()];
        let title = "For the event bus between our billing, shipping and inventory services: Kafka or RabbitMQ";
        assert_eq!(naming(title, &named), "for-the-event-bus-between-our-billing-kafka-rabbitmq");
        assert_eq!(naming("Kafka or RabbitMQ", &named), "kafka-or-rabbitmq", "a short slug stays whole");
    }

    proptest! {
        #[test]
        fn always_safe(title in "\\PC{0,500}", options in proptest::collection::vec("\\PC{0,80}", 0..4)) {
            for s in [slug(&title), naming(&title, &options)] {
                prop_assert!(!s.is_empty() && s.len() <= 60, "{}", s);
                prop_assert!(s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
                prop_assert!(!s.contains("..") && !s.starts_with('-') && !s.ends_with('-') && !s.contains("--"));
            }
        }
    }
}
