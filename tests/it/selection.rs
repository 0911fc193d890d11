//! Panel selection without a model (README: "What a debate does", step 1): the keyword
//! heuristic must give every question a panel of the right size, with the obviously
//! relevant perspectives on it, at least one opposing pair, and a reason for every pick.

use debate::catalog::Catalog;
use debate::model::Seat;
use debate::moderator::analysis::analyse;
use debate::moderator::selection::{Request, select};

/// How many debaters a question calls for.
#[derive(Debug, Clone, Copy)]
enum Size {
    /// "X or Y", "X vs Y": exactly two.
    Binary,
    /// No two options named, three or more options, or several domains: three or four.
    Multi,
}

struct Case {
    question: &'static str,
    size: Size,
    /// Perspectives that must be on the panel. `"A|B"` means at least one of A and B.
    must: &'static [&'static str],
}

const CASES: &[Case] = &[
    // Caching.
    Case {
        question: "Should we cache product pages in Redis or Memcached?",
        size: Size::Binary,
        must: &["Performance Advocate"],
    },
    // Authentication.
    Case {
        question: "How should we implement authentication for our web app?",
        size: Size::Multi,
        must: &["Security Advocate"],
    },
    // Security against user friction.
    Case {
        question: "Should we require MFA for every login or only for admins?",
        size: Size::Binary,
        must: &["Security Advocate", "User Experience"],
    },
    // API style.
    Case { question: "REST vs GraphQL for our public API?", size: Size::Binary, must: &["Future Flexibility"] },
    // Architecture.
    Case {
        question: "Monolith or microservices for our new order system?",
        size: Size::Binary,
        must: &["Simplicity Advocate", "Future Flexibility"],
    },
    // UI framework: three options named.
    Case { question: "React, Vue or Svelte for the dashboard?", size: Size::Multi, must: &["User Experience"] },
    // Hiring.
    Case {
        question: "Should we hire a contractor or train our team in Kubernetes?",
        size: Size::Binary,
        must: &["Team Sustainability"],
    },
    // Process.
    Case {
        question: "How should we change our code review process so pull requests stop waiting for days?",
        size: Size::Multi,
        must: &["Team Sustainability"],
    },
    // Cost.
    Case {
        question: "How can we cut our AWS cloud spend without hurting reliability?",
        size: Size::Multi,
        must: &["Cost Control", "Reliability Engineer"],
    },
    // Compliance.
    Case {
        question: "How do we meet GDPR data residency requirements for our EU customers?",
        size: Size::Multi,
        must: &["Compliance Guardian"],
    },
    // Observability and on-call.
    Case {
        question: "How should we improve observability and on-call so we recover from outages faster?",
        size: Size::Multi,
        must: &["Operational Simplicity", "Reliability Engineer"],
    },
    // Message queue.
    Case {
        question: "Should we use Kafka or RabbitMQ as the message queue between our services?",
        size: Size::Binary,
        must: &["Reliability Engineer|Performance Advocate"],
    },
    // Programming language.
    Case {
        question: "Should we write the new ingestion service in Rust or Go?",
        size: Size::Binary,
        must: &["Developer Velocity|Team Sustainability"],
    },
    // Programming language under a delivery constraint.
    Case {
        question: "We need to ship the MVP quickly: should we write the backend in Python or Rust?",
        size: Size::Binary,
        must: &["Developer Velocity"],
    },
    // Database for a ledger.
    Case {
        question: "Should we store the payments ledger in Postgres or MongoDB?",
        size: Size::Binary,
        must: &["Data Integrity"],
    },
    // Deployment platform.
    Case {
        question: "Should we deploy on Kubernetes or a managed PaaS like Heroku?",
        size: Size::Binary,
        must: &["Operational Simplicity"],
    },
    // Vendor lock-in.
    Case {
        question: "How worried should we be about vendor lock-in if we build on Firebase?",
        size: Size::Multi,
        must: &["Vendor Independence"],
    },
    // Vague but multi-faceted.
    Case { question: "How should we structure the plugin system?", size: Size::Multi, must: &["Future Flexibility"] },
];

fn catalog() -> Catalog {
    Catalog::build(&[]).expect("the built-in catalog is valid")
}

fn run(catalog: &Catalog, question: &str, size: Option<u8>, forced: &[String]) -> Result<Vec<Seat>, String> {
    select(catalog, question, &analyse(question), &Request { size, forced }).map_err(|err| err.to_string())
}

/// The panel, one seat per line with its reason, for assertion messages.
fn show(question: &str, seats: &[Seat]) -> String {
    let mut out = format!("question: {question:?}\n  analysis: {:?}\n  panel:", analyse(question));
    for seat in seats {
        out.push_str(&format!("\n    - {} — {}", seat.perspective.name, seat.reason));
    }
    out
}

fn has(seats: &[Seat], name: &str) -> bool {
    seats.iter().any(|s| s.perspective.name.eq_ignore_ascii_case(name))
}

fn has_opposing_pair(catalog: &Catalog, seats: &[Seat]) -> bool {
    seats
        .iter()
        .enumerate()
        .any(|(i, a)| seats[i + 1..].iter().any(|b| catalog.opposed(&a.perspective.name, &b.perspective.name)))
}

/// Rules every panel keeps whatever was asked: catalog names only, no repeats, a reason
/// for every pick, and at least one opposing pair.
fn structural_problems(catalog: &Catalog, seats: &[Seat]) -> Vec<String> {
    let mut problems = Vec::new();
    for (i, seat) in seats.iter().enumerate() {
        if catalog.find(&seat.perspective.name).is_none() {
            problems.push(format!("{:?} is not in the catalog", seat.perspective.name));
        }
        if seats[..i].iter().any(|s| s.perspective.name.eq_ignore_ascii_case(&seat.perspective.name)) {
            problems.push(format!("{:?} sits twice", seat.perspective.name));
        }
        if seat.reason.trim().is_empty() {
            problems.push(format!("{:?} has no reason", seat.perspective.name));
        }
    }
    if !has_opposing_pair(catalog, seats) {
        problems.push("no pair on the panel opposes".into());
    }
    problems
}

#[test]
fn every_question_gets_a_sensible_panel() {
    let catalog = catalog();
    let mut failures = Vec::new();
    for case in CASES {
        let seats = match run(&catalog, case.question, None, &[]) {
            Ok(seats) => seats,
            Err(err) => {
                failures.push(format!("question: {:?}\n  selection failed: {err}", case.question));
                continue;
            }
        };
        let mut problems = structural_problems(&catalog, &seats);
        match case.size {
            Size::Binary if seats.len() != 2 => {
                problems.push(format!("a binary question wants 2 debaters, got {}", seats.len()))
            }
            Size::Multi if !(3..=4).contains(&seats.len()) => {
                problems.push(format!("a multi-faceted question wants 3–4 debaters, got {}", seats.len()))
            }
            _ => {}
        }
        for must in case.must {
            if !must.split('|').any(|name| has(&seats, name)) {
                problems.push(format!("missing {}", must.replace('|', " or ")));
            }
        }
        if !problems.is_empty() {
            failures.push(format!("{}\n  problems: {}", show(case.question, &seats), problems.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} questions got a bad panel:\n\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n\n")
    );
}

#[test]
fn expected_perspectives_exist_in_the_catalog() {
    // Guards the table above against typos: every expected name is a real entry.
    let catalog = catalog();
    for case in CASES {
        for name in case.must.iter().flat_map(|m| m.split('|')) {
            assert!(catalog.find(name).is_some(), "{name:?} (expected for {:?}) is not in the catalog", case.question);
        }
    }
}

#[test]
fn selection_is_deterministic() {
    let catalog = catalog();
    for case in CASES {
        let first = run(&catalog, case.question, None, &[]);
        let second = run(&catalog, case.question, None, &[]);
        assert_eq!(first, second, "{:?} gave two different panels", case.question);
    }
}

#[test]
fn requested_size_overrides_the_question() {
    let catalog = catalog();
    for case in CASES {
        for size in 2..=4u8 {
            let seats = run(&catalog, case.question, Some(size), &[])
                .unwrap_or_else(|err| panic!("{:?} with size {size}: {err}", case.question));
            let problems = structural_problems(&catalog, &seats);
            assert!(
                seats.len() == size as usize && problems.is_empty(),
                "size {size} requested, got {}: {problems:?}\n{}",
                seats.len(),
                show(case.question, &seats)
            );
        }
    }
}

#[test]
fn requested_size_can_widen_a_binary_question_and_narrow_a_broad_one() {
    let catalog = catalog();
    let binary = "Should we store the payments ledger in Postgres or MongoDB?";
    let broad = "How do we meet GDPR data residency requirements for our EU customers?";
    assert_eq!(analyse(binary).panel_size, 2);
    assert!(analyse(broad).panel_size >= 3);

    let wide = run(&catalog, binary, Some(4), &[]).unwrap();
    assert_eq!(wide.len(), 4, "{}", show(binary, &wide));
    assert!(has(&wide, "Data Integrity"), "widening keeps the best pick:\n{}", show(binary, &wide));

    let narrow = run(&catalog, broad, Some(2), &[]).unwrap();
    assert_eq!(narrow.len(), 2, "{}", show(broad, &narrow));
    assert!(has(&narrow, "Compliance Guardian"), "narrowing keeps the best pick:\n{}", show(broad, &narrow));
    assert!(has_opposing_pair(&catalog, &narrow), "{}", show(broad, &narrow));
}

#[test]
fn forced_names_are_always_included_in_any_case() {
    let catalog = catalog();
    let requests: &[(&[&str], Option<u8>)] = &[
        (&["security advocate"], None),
        (&["SECURITY ADVOCATE"], Some(2)),
        (&["  Cost Control  "], Some(3)),
        // Two names that agree: a third seat must bring the opposition.
        (&["user experience", "COST CONTROL"], Some(3)),
        (&["user experience", "COST CONTROL"], Some(4)),
        (&["security advocate", "User Experience"], None),
        (&["team sustainability", "Future Flexibility", "data integrity"], None),
        (&["Compliance Guardian", "developer velocity"], Some(2)),
        (&["performance advocate", "Performance Advocate"], Some(2)),
    ];
    for case in CASES {
        for (names, size) in requests {
            let forced: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            let seats = run(&catalog, case.question, *size, &forced)
                .unwrap_or_else(|err| panic!("{:?} with {forced:?}, size {size:?}: {err}", case.question));
            let context = format!("--with {forced:?}, size {size:?}\n{}", show(case.question, &seats));
            for name in names.iter() {
                assert!(has(&seats, name.trim()), "{name:?} was forced but is missing: {context}");
            }
            let problems = structural_problems(&catalog, &seats);
            assert!(problems.is_empty(), "{problems:?}: {context}");
            let distinct = {
                let mut lower: Vec<String> = names.iter().map(|n| n.trim().to_lowercase()).collect();
                lower.sort();
                lower.dedup();
                lower.len()
            };
            match size {
                Some(n) => assert_eq!(seats.len(), *n as usize, "the requested size wins: {context}"),
                None => {
                    let wanted = (analyse(case.question).panel_size as usize).max(distinct);
                    assert_eq!(seats.len(), wanted, "the question's size, widened for forced names: {context}");
                }
            }
        }
    }
}

#[test]
fn every_catalog_entry_can_be_forced_onto_a_two_seat_panel() {
    let catalog = catalog();
    for entry in catalog.entries() {
        for case in CASES {
            for spelling in [entry.name.clone(), entry.name.to_lowercase(), entry.name.to_uppercase()] {
                let forced = vec![spelling];
                let seats = run(&catalog, case.question, Some(2), &forced)
                    .unwrap_or_else(|err| panic!("--with {forced:?} on {:?}: {err}", case.question));
                let context = format!("--with {forced:?}, size 2\n{}", show(case.question, &seats));
                assert_eq!(seats.len(), 2, "{context}");
                assert!(has(&seats, &entry.name), "the forced entry is missing: {context}");
                let problems = structural_problems(&catalog, &seats);
                assert!(problems.is_empty(), "{problems:?}: {context}");
            }
        }
    }
}

#[test]
fn an_unknown_forced_name_is_refused() {
    let catalog = catalog();
    let forced = vec!["Chaos Monkey".to_string()];
    let err = run(&catalog, CASES[0].question, None, &forced).unwrap_err();
    assert!(err.contains("Chaos Monkey"), "the error names the unknown perspective: {err}");
}

/// The evaluation set: at least 90% of the perspectives a reviewer expects are on the
/// keyword panel (before any model refines it), and the cases the issue names hold.
#[test]
fn the_evaluation_set_meets_its_hit_rate() {
    let score = crate::common::eval::evaluate();
    assert!(score.cases >= 40, "{} cases", score.cases);
    assert!(
        score.hit_rate() >= 0.90,
        "{} of {} expected perspectives present ({:.0}%):\n{}",
        score.present,
        score.expected,
        score.hit_rate() * 100.0,
        score.misses.join("\n")
    );
    let options = score.options_right as f64 / score.option_cases as f64;
    assert!(options >= 0.90, "options right in {:.0}%:\n{}", options * 100.0, score.misses.join("\n"));
    assert_eq!(score.vague_right, score.vague_cases, "{}", score.misses.join("\n"));
}
