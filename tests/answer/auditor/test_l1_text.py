"""L1: every branch of the pure text fixes."""

from groundsearch.answer.auditor.l1_text import PASTE_WORDS, classify_link, fix_spacing, l1_fix, links

from .dossier import CONSTRAINTS, SOURCES


def test_links_finds_markdown_and_bare_urls():
    found = links("See [the docs](https://acme.example/docs/latency) or https://x.example/a.")
    assert found == [("the docs", "https://acme.example/docs/latency"), (None, "https://x.example/a")]


def test_a_source_url_is_kept_even_spelled_differently():
    assert classify_link("docs", "https://ACME.example/docs/latency/#top", "s", CONSTRAINTS)[0] == "keep"
    fixed = l1_fix("Read [the docs](https://acme.example/docs/latency).", CONSTRAINTS)
    assert fixed.text == "Read [the docs](https://acme.example/docs/latency)." and fixed.changes == ()


def test_an_unknown_url_about_a_known_entity_is_rescued_to_its_canonical_url():
    fixed = l1_fix("Acme Search explains it [here](https://acme.example/old-page).", CONSTRAINTS)
    assert "(https://acme.example/docs/latency)" in fixed.text
    assert "old-page" not in fixed.text
    assert any("rescued" in c for c in fixed.changes)


def test_a_bare_unknown_url_about_a_known_entity_is_rescued_too():
    fixed = l1_fix("Initech describes it at https://initech.example/made-up.", CONSTRAINTS)
    assert fixed.text == "Initech describes it at https://initech.example/blog/hybrid."


def test_an_unknown_markdown_link_loses_its_address_and_keeps_its_words():
    fixed = l1_fix("Tantivy is described in [a long guide](https://elsewhere.example/guide).", CONSTRAINTS)
    assert fixed.text == "Tantivy is described in a long guide."
    assert classify_link("a long guide", "https://elsewhere.example/guide", fixed.text, CONSTRAINTS)[0] != "keep"


def test_an_unknown_bare_url_inside_a_sentence_is_stripped_and_the_sentence_kept():
    fixed = l1_fix("Tantivy is a keyword index (https://elsewhere.example/t) written in Rust.", CONSTRAINTS)
    assert fixed.text == "Tantivy is a keyword index written in Rust."


def test_a_sentence_that_is_only_an_unverifiable_link_is_stripped_and_traced():
    fixed = l1_fix("Source: https://fabricated.example/report", CONSTRAINTS)
    assert fixed.text == ""
    assert fixed.changes and "only an unverifiable link" in fixed.changes[0]


def test_generic_labels_become_the_entity_name():
    fixed = l1_fix("For details [click here](https://acme.example/docs/latency).", CONSTRAINTS)
    assert fixed.text == "For details [Acme Search](https://acme.example/docs/latency)."
    kept = l1_fix("For details [click here](https://acme.example/docs/latency).",
                  CONSTRAINTS.__class__(source_urls=CONSTRAINTS.source_urls))
    assert "[click here]" in kept.text  # no entity to name it after: the label stays


def test_ungrounded_study_names_are_masked_and_grounded_ones_kept():
    fixed = l1_fix("The Harlow Retention Study shows Tantivy is fast.", CONSTRAINTS)
    assert fixed.text == "A study shows Tantivy is fast."
    grounded = CONSTRAINTS.__class__(sources={"x": "The Harlow Retention Study measured Tantivy."})
    assert l1_fix("The Harlow Retention Study shows Tantivy is fast.", grounded).text.startswith("The Harlow")


def test_et_al_and_according_to_attributions_are_masked_when_no_source_names_them():
    assert l1_fix("Smith et al. (2020) found Tantivy fast.", CONSTRAINTS).text == "One study found Tantivy fast."
    assert l1_fix("According to Gartner, Tantivy is fast.", CONSTRAINTS).text == "Tantivy is fast."
    assert l1_fix("According to Initech, hybrid wins.", CONSTRAINTS).text == "According to Initech, hybrid wins."


def test_a_verbatim_paste_from_a_source_is_collapsed():
    long_source = " ".join(f"word{i}" for i in range(PASTE_WORDS + 10)) + "."
    constraints = CONSTRAINTS.__class__(sources={"p": long_source})
    fixed = l1_fix(long_source, constraints)
    assert fixed.text.endswith("…") and len(fixed.text.split()) < PASTE_WORDS
    short = " ".join(long_source.split()[:PASTE_WORDS - 1])
    assert l1_fix(short, constraints).text == short  # shorter than a paste: a quote, kept


def test_spacing_and_heading_fixes():
    assert fix_spacing("Tantivy  is fast .It scales , too.") == "Tantivy is fast. It scales, too."
    assert fix_spacing("fast.Then more") == "fast. Then more"
    assert fix_spacing("##Results.") == "## Results"
    assert fix_spacing("###   Two   words:") == "### Two words"
    assert fix_spacing("Version 1.2 is out.") == "Version 1.2 is out."  # a decimal point is not a sentence end


def test_sources_are_not_mutated_by_fixing():
    before = dict(SOURCES)
    l1_fix("Source: https://fabricated.example/report", CONSTRAINTS)
    assert dict(CONSTRAINTS.sources) == before


def test_a_see_for_details_sentence_around_an_unknown_link_goes_whole():
    assert l1_fix("See https://made-up.example/setup for details.", CONSTRAINTS).text == ""
    assert l1_fix("Learn more at https://made-up.example/x", CONSTRAINTS).text == ""


def test_a_link_is_rescued_to_the_entity_named_just_before_it():
    fixed = l1_fix("Initech uses Acme Search, and Initech documents it at https://initech.example/old.", CONSTRAINTS)
    assert fixed.text == "Initech uses Acme Search, and Initech documents it at https://initech.example/blog/hybrid."
    other = l1_fix("Initech wrote about Acme Search at https://acme.example/old.", CONSTRAINTS)
    assert other.text == "Initech wrote about Acme Search at https://acme.example/docs/latency."


def test_removing_an_opening_attribution_capitalises_what_is_left():
    assert l1_fix("According to Gartner, every team should.", CONSTRAINTS).text == "Every team should."


def test_a_generic_label_falls_back_to_the_dossier_name_when_no_source_spells_it():
    c = CONSTRAINTS.__class__(source_urls=("https://x.example/a",), canonical_urls={"atlas": "https://x.example/a"})
    assert l1_fix("Read [click here](https://x.example/a).", c).text == "Read [atlas](https://x.example/a)."


def test_a_paste_starting_mid_sentence_keeps_the_writer_words_before_it():
    source = " ".join(f"w{i}" for i in range(PASTE_WORDS + 5))
    c = CONSTRAINTS.__class__(sources={"p": source})
    fixed = l1_fix("In short: " + source, c)
    assert fixed.text.startswith("In short: w0") and fixed.text.endswith("…")
    assert any("verbatim paste" in ch for ch in fixed.changes)
