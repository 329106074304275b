"""L2: each dossier rule fails a sentence that breaks it and passes one that keeps it."""

import dataclasses

from groundsearch.answer.auditor.l2_constraints import check, metrics, quotes, unsupported

from .dossier import CONSTRAINTS


def test_a_sentence_without_checkable_claims_passes():
    assert check("Keyword search is one leg of hybrid retrieval.", CONSTRAINTS) == ()


def test_an_invented_organisation_with_a_metric_fails_twice_over():
    reasons = check("Globex Industries cut support tickets by 37% with Acme Search.", CONSTRAINTS)
    assert any("names not in the dossier: globex industries" in r for r in reasons)
    assert any(r.startswith("metric 37") for r in reasons)


def test_a_real_organisation_with_an_invented_metric_fails():
    reasons = check("Acme Search cut query latency by 55%.", CONSTRAINTS)
    assert reasons == ("metric 55 for acme search is not in any source that names them",)


def test_a_real_organisation_with_its_real_metric_passes():
    assert check("Acme Search cut query latency by 40%.", CONSTRAINTS) == ()
    assert check("Initech serves 1,200 customers.", CONSTRAINTS) == ()


def test_a_metric_from_another_source_than_the_one_naming_the_organisation_fails():
    # 40% is in s1 (Acme Search), Initech only in s2: the figure is not Initech's
    assert check("Initech cut query latency by 40%.", CONSTRAINTS)


def test_metrics_reads_percentages_multiples_amounts_and_durations():
    assert metrics("up 40% and 3x, $1,200 saved in 2 weeks; 7 percent") == ["40", "3", "1200", "2", "7"]
    assert metrics("In 2024 there were five releases") == []


def test_an_attributed_quote_must_be_in_a_source():
    good = 'Initech wrote: "hybrid retrieval beats keyword search on every benchmark we ran".'
    assert check(good, CONSTRAINTS) == ()
    bad = '"Hybrid retrieval is always ten times better," said Initech.'
    assert any("attributed quote not found" in r for r in check(bad, CONSTRAINTS))


def test_a_quoted_term_without_attribution_is_not_a_citation():
    assert quotes('The "impact-ordered postings" layout helps.') == []


def test_every_url_must_be_a_source_url():
    assert check("See https://acme.example/docs/latency for Acme Search.", CONSTRAINTS) == ()
    reasons = check("See https://elsewhere.example/x for Acme Search.", CONSTRAINTS)
    assert reasons == ("links not among the sources: https://elsewhere.example/x",)


def test_every_named_entity_must_be_supported_or_named_by_a_source():
    assert check("Tantivy powers Acme Search.", CONSTRAINTS) == ()
    assert check("Acme Search is built on Elasticsearch.", CONSTRAINTS) == ("names not in the dossier: elasticsearch",)


def test_a_capitalised_first_word_joined_to_a_name_is_not_a_new_name():
    assert check("See Acme Search for details.", CONSTRAINTS) == ()
    assert check("It runs on Globex Acme Search.", CONSTRAINTS)  # not at the start: a different name


def test_a_single_word_organisation_opening_the_sentence_counts_for_the_metric_rule():
    assert check("Globex cut churn by 37%.", CONSTRAINTS) == (
        "metric 37 for globex is not in any source that names them",)
    assert check("However, Acme Search cut query latency by 40%.", CONSTRAINTS) == ()


MODEL_PROSE = dataclasses.replace(CONSTRAINTS, require_support=True)


def test_model_prose_resting_on_no_source_fails_the_support_rule():
    # the 0.5B model's kind of sentence (session-4 eval): no name, number, quote or link, and nothing behind it
    fluent = "Relevance-aware sample estimation improves answer diversity across sparse collections."
    assert check(fluent, CONSTRAINTS) == ()  # the claim rules alone let it through
    assert any(r.startswith("no source supports this sentence") for r in check(fluent, MODEL_PROSE))


def test_model_prose_that_restates_one_source_passes_the_support_rule():
    assert check("Hybrid retrieval beat keyword search on every benchmark the team ran.", MODEL_PROSE) == ()
    assert check("Keyword retrieval in this engine is done with impact-ordered postings.", MODEL_PROSE) == ()


def test_questions_and_short_statements_are_not_held_to_the_support_rule():
    assert check("Which collections should I compare for your migration timeline?", MODEL_PROSE) == ()
    assert check("Here is what I found.", MODEL_PROSE) == ()
    assert unsupported("Sure, happy to help.", MODEL_PROSE) is None



def test_a_citation_must_name_one_of_the_turns_sources():
    numbered = dataclasses.replace(CONSTRAINTS, citable=frozenset({"1", "2"}))
    assert check("Initech serves 1200 customers [2].", numbered) == ()
    assert check("Initech serves 1200 customers [10].", numbered) == ("cites [10], not among this turn's sources",)
    assert check("Initech serves 1200 customers [1, 3].", numbered) == ("cites [3], not among this turn's sources",)
    assert check("Initech serves 1200 customers [10].", CONSTRAINTS) == ()  # no numbered sources: not checked here
