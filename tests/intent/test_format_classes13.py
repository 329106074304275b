"""Session 13's classes, from heldout18 and heldout19's misses (read once they became learning splits): format
words of languages tier 1 reads no grammar of (Indic, Sinhala, Ethiopic, Khmer, Lao, Myanmar scripts; Mongolian,
Kazakh, Kyrgyz, Tajik Cyrillic; Zulu, Somali, Hausa, Uzbek, Irish, Luxembourgish, Yoruba Latin) read as candidates
or refusals, never as a wish tier 1 claims; a table's shape after a use preposition ("in a grid"), inside a question
too; a use phrase typed without spaces ("inatable"). The requests are written for these tests, not taken from a
split."""

from __future__ import annotations

import pytest

from groundsearch.query.intent.directives import read_directive


@pytest.mark.parametrize("q, fmt", [
    ("ਪਿਛਲੇ ਸਾਲ ਦੀਆਂ ਸਾਰੀਆਂ ਰਿਲੀਜ਼ਾਂ ਦੀ ਸਾਰਣੀ ਦਿਖਾਓ", "table"),  # Punjabi
    ("દરેક વર્ઝનની તારીખ સાથે સમયરેખા બનાવો", "timeline"),  # Gujarati
    ("ಪ್ರತಿ ತಿಂಗಳ ಬಿಡುಗಡೆಗಳ ಚಾರ್ಟ್ ಮಾಡಿ", "chart"),  # Kannada
    ("എല്ലാ പതിപ്പുകളുടെയും ഒരു പട്ടിക തരൂ", "table"),  # Malayalam
    ("සියලු අනුවාද සඳහා වගුවක් සාදන්න", "table"),  # Sinhala
    ("ሁሉንም ስሪቶች በሰንጠረዥ አሳየኝ", "table"),  # Amharic
    ("សូមធ្វើខ្សែពេលវេលានៃកំណែទាំងអស់", "timeline"),  # Khmer
    ("ຂໍແຜນພູມຂອງການອອກລຸ້ນແຕ່ລະເດືອນ", "chart"),  # Lao
    ("ဗားရှင်းအားလုံးကို ဇယားဖြင့် ပြပါ", "table"),  # Myanmar
    ("Бүх хувилбаруудыг хүснэгтээр харуулна уу", "table"),  # Mongolian
    ("Барлық нұсқаларды кесте түрінде беріңіз", "table"),  # Kazakh
    ("Ngicela ithebula lawo wonke amaphepha", "table"),  # Zulu
    ("Iltimos, barcha versiyalarni jadvalda ko'rsating", "table"),  # Uzbek
    ("Taispeáin amlíne de na heisiúintí, le do thoil", "timeline"),  # Irish
])
def test_a_format_word_of_an_unread_language_is_a_candidate(q, fmt):
    d = read_directive(q)
    assert (d.format, d.sure, d.candidates[:1]) == (fmt, False, (fmt,))


@pytest.mark.parametrize("q", [
    "ਮੈਨੂੰ ਚਾਰਟ ਨਹੀਂ ਚਾਹੀਦਾ, ਸਿਰਫ਼ ਨਵਾਂ ਵਰਜ਼ਨ ਦੱਸੋ",  # Punjabi: no chart, just say the new version
    "ಕೋಷ್ಟಕ ಬೇಡ, ಒಂದು ವಾಕ್ಯದಲ್ಲಿ ಹೇಳಿ",  # Kannada
    "Хүснэгт биш, зүгээр л хэлээрэй",  # Mongolian
    "Jadval kerak emas, faqat sanani ayting",  # Uzbek
    "Angifuni ithebula, ngitshele nje",  # Zulu
])
def test_a_refusal_beside_the_word_in_an_unread_language_refuses_it(q):
    d = read_directive(q)
    assert (d.format, d.evidence) == ("default", "refused")


def test_a_refused_kind_then_another_in_an_unread_script_is_the_wish():
    d = read_directive("ਪਾਈ ਚਾਰਟ ਨਹੀਂ, ਬਾਰ ਚਾਰਟ ਵਿੱਚ ਦਿਖਾਓ")  # not a pie chart, show it in a bar chart
    assert (d.format, d.chart_subtype, d.sure) == ("chart", "bar", True)


def test_a_table_of_contents_or_a_timetable_is_no_wish():
    assert read_directive("ഈ പുസ്തകത്തിന്റെ ഉള്ളടക്കപ്പട്ടിക എവിടെ?").format == "default"
    assert read_directive("ရထား အချိန်ဇယား ဘယ်မှာလဲ").format == "default"


@pytest.mark.parametrize("q", [
    "Which registries, in a grid, shipped the most patch releases this year?",
    "could the embedding models go in rows and columns, with size and licence?",
    "i'd love the survey papers laid out in columns: title, year, venue",
    "Send the vendor shortlist as a matrix please",
])
def test_a_tables_shape_after_a_use_preposition_is_a_table(q):
    d = read_directive(q)
    assert (d.format, d.evidence, d.sure) == ("table", "paraphrase-used", True)


@pytest.mark.parametrize("q", [
    "Should I store each embedding as rows or as one blob?",
    "No need to put it in a grid, a sentence will do.",
])
def test_rows_as_storage_or_a_refused_grid_is_no_table(q):
    assert read_directive(q).format == "default"


@pytest.mark.parametrize("q, fmt", [
    ("show the vector db releases inatable", "table"),
    ("put last month's downloads asachart", "chart"),
    ("the venues of the agent papers inatimeline", "timeline"),
])
def test_a_use_phrase_typed_without_spaces_is_read_as_its_words(q, fmt):
    d = read_directive(q)
    assert (d.format, d.sure) == (fmt, True)


def test_a_word_that_only_looks_glued_stays_a_word():
    assert read_directive("How does an astable multivibrator work?").format == "default"


def test_a_mails_greeting_and_signature_are_no_wish():
    mail = "Dear team,\nplease prepare the release list of Chroma.\nKind regards,\nDr. P. Rao\nHead of Charts & Tables"
    assert read_directive(mail).format == "default"
    asked = "Hi Graph team,\n\nCould you send the 2024 Milvus releases as a table?\n\nThanks!\nTom\nTimeline Media"
    assert (read_directive(asked).format, read_directive(asked).sure) == ("table", True)


def test_the_classifier_still_reads_a_mails_own_lines_whole():
    from groundsearch.query.intent.directives import own_lines

    mail = "Hi Ana,\nCould you send a timeline?\nCheers,\nTom\nSent from my iPhone"
    assert own_lines(mail) == mail  # only quoted lines, headers and what follows "--" are others' words
