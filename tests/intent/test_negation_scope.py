"""How far a refusal reaches, in the nine languages and outside them (session 7). Each class is stated as a rule
and tested on sentences written for this file, not taken from a labelled split:

* a negation governs a use preposition and what it takes ("not as a table", "nicht als Tabelle", "could you not
  put this in a table"); "everything but" and "instead of" refuse what follows them; verbs of avoiding refuse their
  object; "neither … nor" reaches both words; a negated refusal ("don't forget …") and "why not …?" ask;
* after a refusal, a format word that a contrast or a preference opens ("not a table but a chart", "keine Tabelle,
  lieber eine Zeitleiste") is the wish, and the classifier — which reads the refusal's words as asking for
  nothing — may not overrule it to no structure;
* Chinese and Japanese refusals said after the word ("图表就不用了", "表にしないで", "グラフではなく") or before it
  inside its clause only ("不是表格，是柱状图");
* a Latin-script request in a language outside the nine: tier 1 reads no refusal there, so each format word it
  finds is a candidate for the classifier, and no unknown word before a chart word is taken for a kind's name."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from groundsearch.query.intent.directives import fold, foreign_latin, read_directive
from groundsearch.query.intent.format_model import FORMATS, load_calibration, restrict
from groundsearch.query.intent.format_step import FormatStep


def _refused(query: str) -> None:
    d = read_directive(query)
    assert (d.format, d.evidence, d.sure) == ("default", "refused", True), d


@pytest.mark.parametrize(
    "query",
    [
        "not as a table please, I'm reading this on a watch",
        "not in a table — just tell me which venue had the most papers",
        "could you not put the SIGIR papers in a table this time",
        "nicht als Tabelle bitte, nur die neueste Version",
        "pas sous forme de tableau, merci : qui a écrit ColBERT ?",
        "non in tabella, dimmi solo l'ultima versione di opik",
        "niet als tabel, vertel me gewoon wie ColBERT schreef",
        "não em tabela, por favor: qual é a versão mais recente?",
    ],
)
def test_a_negation_governs_the_use_preposition_after_it(query: str) -> None:
    _refused(query)


@pytest.mark.parametrize(
    "query",
    [
        "anything but a chart, I just need the name of the newest release",
        "everything except a table works for me — who wrote the DPR paper?",
        "todo menos una tabla: ¿quién escribió ColBERT?",
        "tout sauf un tableau, s'il te plaît : quelle version est sortie en dernier ?",
        "alles außer einer Tabelle – wer hat ColBERT geschrieben?",
        "tutto tranne un grafico, per favore: chi ha scritto ColBERT?",
        "alles behalve een grafiek graag, wie schreef ColBERT?",
        "tudo menos um gráfico: quem escreveu o ColBERT?",
    ],
)
def test_everything_but_refuses_what_follows(query: str) -> None:
    _refused(query)


@pytest.mark.parametrize(
    "query",
    [
        "en vez de una tabla, dime en dos frases qué cambió en langfuse",
        "au lieu d'un tableau, explique-moi simplement ce qui a changé",
        "statt einer Tabelle erklär mir kurz, was sich geändert hat",
        "em vez de uma tabela, explica em duas frases o que mudou",
        "al posto di una tabella, spiegami in due frasi cosa è cambiato",
        "in plaats van een tabel, leg in twee zinnen uit wat er veranderde",
    ],
)
def test_instead_of_refuses_the_word_it_takes_in_the_nine_languages(query: str) -> None:
    _refused(query)


@pytest.mark.parametrize(
    "query",
    [
        "please avoid tables, my screen reader chokes on them",
        "spare me the chart and say which release was biggest",
        "leave out the graph, I only need the author of RAFT",
        "evita las tablas, por favor, y dime quién escribió ColBERT",
        "évitez les graphiques : qui a écrit ColBERT ?",
        "vermeide Tabellen, sag mir nur die neueste Version",
        "evita le tabelle e dimmi chi ha scritto ColBERT",
        "vermijd grafieken, zeg alleen wie ColBERT schreef",
    ],
)
def test_verbs_of_avoiding_refuse_their_object(query: str) -> None:
    _refused(query)


@pytest.mark.parametrize(
    "query",
    [
        "neither a table nor a chart, just two sentences",
        "weder Tabelle noch Diagramm, bitte nur zwei Sätze",
        "né tabelle né grafici, solo due frasi",
        "no more tables please, tell me in words",
    ],
)
def test_neither_nor_and_no_more_reach_every_word(query: str) -> None:
    _refused(query)


@pytest.mark.parametrize(
    ("query", "fmt"),
    [
        ("don't forget to put the ICML papers in a table", "table"),  # a negated refusal asks
        ("kannst du noch eine Tabelle der Releases machen?", "table"),  # "noch eine": one more, not "nor"
        ("me ne fai una tabella con gli articoli di SIGIR?", "table"),  # Italian "ne": of it, not "né"
        ("make it a table, not a list", "table"),
        ("put the venues in a chart rather than in a list", "chart"),
    ],
)
def test_what_a_refusal_does_not_reach_still_asks(query: str, fmt: str) -> None:
    d = read_directive(query)
    assert (d.format, d.sure) == (fmt, True), d


def test_why_not_suggests_the_word_rather_than_refusing_it() -> None:
    for query in ("why not a table?", "¿por qué no una tabla?", "pourquoi pas un tableau ?"):
        assert read_directive(query).evidence != "refused", query


@pytest.mark.parametrize(
    ("query", "fmt"),
    [
        ("not a table but a chart of papers per venue", "chart"),
        ("no chart, a table of the ICLR papers", "table"),
        ("no table — just a timeline of the opik releases", "timeline"),
        ("bitte keine Tabelle, sondern ein Diagramm der Papers pro Venue", "chart"),
        ("keine Tabelle, lieber eine Zeitleiste der Releases", "timeline"),
        ("sin tabla, sino un gráfico de los papers por congreso", "chart"),
        ("pas de tableau mais un graphique des articles par conférence", "chart"),
        ("niente tabella ma un grafico degli articoli per conferenza", "chart"),
        ("não uma tabela, mas um gráfico dos artigos por conferência", "chart"),
        ("geen tabel maar een grafiek van de papers per conferentie", "chart"),
        ("不是表格，是柱状图：每个会议的论文数", "chart"),
    ],
)
def test_after_a_refusal_a_contrasted_format_word_is_a_sure_framed_wish(query: str, fmt: str) -> None:
    d = read_directive(query)
    assert (d.format, d.evidence, d.sure, d.framed) == (fmt, "used", True, True), d


class _SaysNone:
    """A classifier that reads the refusal's words and is sure the request asks for nothing."""

    def predict(self, query, candidates=()):
        p = np.array([0.99 if f == "default" else 0.0025 for f in FORMATS])
        return restrict(p, candidates)


def test_a_contrasted_wish_is_not_overruled_to_no_structure() -> None:
    cal = replace(load_calibration(), overrides={"used": 0.5, "none": 0.5})
    step = FormatStep(lambda: _SaysNone(), cal)
    for query in ("not a table but a chart of papers per venue", "keine Tabelle, sondern ein Diagramm der Papers"):
        decision, _ = step.decide(query, read_directive(query))
        assert (decision.format, decision.tier) == ("chart", "rules"), query


@pytest.mark.parametrize(
    "query",
    [
        "图表就不用了，直接告诉我最新版本",
        "表格不用了，说一下谁写的ColBERT",
        "请勿使用表格，简单回答即可",
        "别做成表格，一句话就行",
        "表にしないでください。最新のバージョンだけ教えて",
        "グラフは使わないで、文章で説明してほしい",
        "グラフではなく文章で答えてください",
    ],
)
def test_chinese_and_japanese_refusals_around_the_word(query: str) -> None:
    _refused(query)


def test_a_chinese_refusal_before_the_word_stops_at_its_clause() -> None:
    d = read_directive("不要表格，用折线图展示每月的发布数量")
    assert (d.format, d.chart_subtype, d.sure) == ("chart", "line", True)
    assert read_directive("是不是表格更清楚一些？").evidence != "refused"  # "is a table clearer?" suggests one


@pytest.mark.parametrize(
    "query",
    [
        "tolong buatkan tabel makalah SIGIR dengan judul dan tahun",  # Indonesian
        "fă-mi te rog un tabel cu lucrările de la ICLR",  # Romanian
        "visa artiklarna från SIGIR och deras år i en tabell",  # Swedish
        "SIGIR makalelerini bir tablo olarak göster lütfen",  # Turkish
        "näytä SIGIR-artikkelit taulukkona, kiitos",  # Finnish
        "Zobrazte články z konference ICLR jako tabulku",  # Czech
    ],
)
def test_a_language_outside_the_nine_hands_its_wishes_to_the_classifier(query: str) -> None:
    assert foreign_latin(query, fold(query))
    d = read_directive(query)
    assert not d.sure and d.format == "table" and "table" in d.candidates, d


@pytest.mark.parametrize(
    "query",
    [
        "tolong jangan pakai tabel, sebutkan saja versi terbaru dari opik",  # Indonesian: don't use
        "fără tabel, te rog, spune-mi doar cine a scris ColBERT",  # Romanian: without
        "ingen tabell tack, bara vem som skrev ColBERT",  # Swedish: no
        "tablo istemiyorum, sadece en son sürümü söyle",  # Turkish: after the word
        "bez tabulky prosím, jen mi řekni nejnovější verzi",  # Czech
        "בלי טבלה בבקשה, רק מי כתב את ColBERT",  # Hebrew
        "χωρίς πίνακα, πες μου μόνο ποιος έγραψε το ColBERT",  # Greek
        "ไม่ต้องมีตาราง บอกแค่ว่าใครเขียน ColBERT",  # Thai
    ],
)
def test_a_no_or_without_outside_the_nine_refuses_the_word_next_to_it(query: str) -> None:
    _refused(query)


def test_outside_the_nine_a_later_clause_after_a_refusal_names_the_wish() -> None:
    d = read_directive("jangan pakai tabel, pakai diagram saja untuk jumlah rilis setiap produk")
    assert (d.format, d.sure, d.framed) == ("chart", True, True), d


def test_no_unknown_word_in_another_language_is_a_kind_name() -> None:
    d = read_directive("tolong buatkan diagram jumlah rilis untuk setiap produk")  # "buatkan": make (for me)
    assert (d.format, d.sure) == ("chart", False) and d.chart_subtype != "other", d


@pytest.mark.parametrize(
    "query",
    ["Streudiagramm Zitate gegen Jahr", "cronologia dei rilasci di opik", "Heatmap Abschnitte gegen Jahre",
     "radar plot comparing rerankers"],
)
def test_terse_requests_of_the_nine_are_read_as_before(query: str) -> None:
    assert not foreign_latin(query, fold(query))
    assert read_directive(query).sure


def test_polish_keeps_its_own_reader() -> None:
    query = "pokaż mi wykres kołowy wydań, bez tabeli"  # tier 1 has Polish refusals ("bez", "nie")
    assert not foreign_latin(query, fold(query))
    d = read_directive(query)
    assert (d.format, d.chart_subtype, d.sure) == ("chart", "pie", True), d


def test_a_complaint_about_an_unasked_format_refuses_it() -> None:
    _refused("I didn't ask for a chart!! just tell me the newest version")
    _refused("it doesn't need a table, two sentences will do")
    # a past "not" of another verb tells what happened; the wish follows by pronoun
    assert read_directive("last time it didn't include a table, please add one").evidence != "refused"


def test_chinese_and_japanese_words_are_read_leftmost_first() -> None:
    d = read_directive("opikのリリースを年表にまとめてください")  # 年表 (chronology) before the 表に inside it
    assert (d.format, d.sure) == ("timeline", True), d


def test_a_hyphenated_co_author_in_any_language_makes_a_graph_word_a_network() -> None:
    for query in ("quiero un graph de los co-autores de ColBERT", "un graphe des co-auteurs de ColBERT"):
        assert read_directive(query).format == "graph", query
