"""Kind names read in their inflected and compound forms, and refused or mentioned ones never counted."""

import pytest

from groundsearch.query.intent.directives import read_directive
from groundsearch.query.intent.morphology import INFLECTED, inflect


@pytest.mark.parametrize(("query", "kind"), [
    ("vis linjediagrammet over utgivelser per måned", "line"),  # Norwegian definite
    ("Kan du lage et stolpediagram over hvor mange utgivelser hvert produkt har hatt i år?", "bar"),
    ("lav et boblediagram: én boble pr. produkt", "bubble"),
    ("lag et kakediagram over andelen per register", "pie"),
    ("készíts oszlopdiagramot a havi kiadásokról", "bar"),  # Hungarian accusative
    ("mutasd kördiagramon a megoszlást", "pie"),  # superessive
    ("näytä viivakaaviona julkaisut kuukausittain", "line"),  # Finnish essive
    ("pokaż na wykresie kołowym udział rejestrów", "pie"),  # Polish locative, adjective inflected
    ("wykres warstwowy skumulowanej liczby wydań", "area"),
    ("Sprav mi čiarový graf počtu vydaní po mesiacoch", "line"),
    ("Možeš li napraviti stupčasti grafikon broja radova po godinama?", "bar"),
    ("aylık sürümlerin çubuk grafiğini çiz", "bar"),  # Turkish accusative
    ("şelale grafiği: aylık sürüm sayısı nasıl değişti", "waterfall"),
    ("onyesha chati ya mstari ya matoleo kwa mwezi", "line"),  # Swahili
    ("نمودار میله‌ای انتشارها در هر ماه را نشان بده", "bar"),  # Persian, ZWNJ before -ای
    ("মাসভিত্তিক রিলিজের সংখ্যা একটি রেখাচিত্রে দেখাও", "line"),  # Bengali, locative glued
    ("मासिक रिलीज़ का रेखा चित्र बनाओ", "line"),
])
def test_an_inflected_kind_name_is_that_kind(query, kind):
    d = read_directive(query)
    assert (d.format, d.chart_subtype) == ("chart", kind)


@pytest.mark.parametrize("query", [
    "ne kell oszlopdiagram, csak egy lista",
    "kördiagram nélkül, csak egy lista",
    "pasta grafiği istemiyorum, sadece liste",
    "nie chcę wykresu kołowego, tylko listę",
    "what is a søjlediagram",
])
def test_a_refused_or_mentioned_inflected_kind_asks_for_no_chart(query):
    assert read_directive(query).format == "default"


def test_inflect_glues_endings_or_pairs_an_adjective_with_the_noun():
    assert inflect(("oszlop",), ("diagram", "diagramot")) == ("oszlopdiagram", "oszlopdiagramot")
    assert inflect(("kołow",), ("y", "ym"), nouns=("wykres", "wykresie"), adjective_first=False) == (
        "wykres kołowy", "wykresie kołowy", "wykres kołowym", "wykresie kołowym")
    assert all(k == "chart" or k.startswith("chart:") for k in INFLECTED)


@pytest.mark.parametrize(("query", "kind"), [
    ("time series plot of monthly release counts across all products", "line"),
    ("time-series chart of papers per year", "line"),
    ("frequency polygon of papers by month of publication", "other"),  # a kind the schema lacks, named
])
def test_compound_english_kind_names(query, kind):
    d = read_directive(query)
    assert (d.format, d.chart_subtype) == ("chart", kind)
    assert read_directive("what is a time series plot").format == "default"


@pytest.mark.parametrize("query", ["ingen kakediagram, lav et søjlediagram over udgivelser per produkt",
                                   "nem kördiagramot, hanem oszlopdiagramot kérek a kiadásokról",
                                   "nie wykres kołowy, tylko wykres słupkowy wydań"])
def test_the_kind_refused_is_not_the_kind_asked_for(query):
    assert read_directive(query).chart_subtype == "bar"
