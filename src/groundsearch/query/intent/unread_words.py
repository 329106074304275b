"""Format words of languages tier 1 reads no grammar of, as data: always candidates, never a wish it claims.

Why: a request in Punjabi, Khmer, Zulu or Uzbek that names a table was read as "no format word in a language
tier 1 cannot read", and the classifier chose among every format, none included; it read "ਸਾਰਣੀ" (a table) as
nothing and "ጊዜ መስመር" as a chart (heldout16-19). Knowing the word, tier 1 hands the classifier the format the
user named as a candidate beside none, which is the choice it makes well. Tier 1 knows each language's word for
"no" or "not" only where it is listed below, so a word found is never sure: it is framed "bare" (a candidate) or
"refused" (its negation beside it), and the classifier decides.

The surfaces are the words a speaker uses for the shape (the native noun, and the English loan where that is
what people type: "ਚਾਰਟ", "ቻርት"), not any request's words; languages of blind splits not yet measured are not
here. Scripts tier 1 matches as substrings (Indic, Sinhala, Ethiopic, Khmer, Lao, Myanmar, Cyrillic) cover their
suffixes with the stem; Latin surfaces are whole words, folded like the lexicon's.
"""

from __future__ import annotations

__all__ = ["UNREAD_WORDS", "UNREAD_SENSES", "UNREAD_MENTIONS", "UNREAD_NEGATION_AFTER"]

UNREAD_WORDS: dict[str, tuple[str, ...]] = {
    "table": (
        "ਸਾਰਣੀ", "ਟੇਬਲ",  # Punjabi
        "કોષ્ટક", "ટેબલ",  # Gujarati
        "ಕೋಷ್ಟಕ", "ಟೇಬಲ್",  # Kannada
        "പട്ടിക", "ടേബിൾ",  # Malayalam
        "அட்டவணை", "పట్టిక",  # Tamil, Telugu
        "වගුව",  # Sinhala
        "ሰንጠረዥ",  # Amharic
        "តារាង",  # Khmer
        "ຕາຕະລາງ",  # Lao
        "ဇယား",  # Myanmar
        "хүснэгт", "кесте", "жадыбал", "ҷадвал", "жадвал",  # Mongolian, Kazakh, Kyrgyz, Tajik, Uzbek (Cyrillic)
        "jadval", "jadvalda", "jadvalini", "jadvali", "jadvalga",  # Uzbek
        "ithebula", "ithebhula", "ethebuleni", "ethebhuleni",  # Zulu
        "jadwal", "jadwalka",  # Somali
        "jadawali", "jadawalin", "tebur",  # Hausa
        "tabili",  # Yoruba
    ),
    "chart": (
        "ਚਾਰਟ", "ਗ੍ਰਾਫ", "ચાર્ટ", "આલેખ", "ગ્રાફ", "ಚಾರ್ಟ್", "ಗ್ರಾಫ್", "ചാർട്ട്", "ചാര്‍ട്ട്", "ഗ്രാഫ്",
        "விளக்கப்படம்", "చార్ట్", "ප්‍රස්ථාර", "ප්රස්ථාර", "ቻርት", "ግራፍ", "គំនូសតាង", "ក្រាហ្វ", "ແຜນພູມ",
        "ກຣາຟ", "ဂရပ်", "ပုံပြဇယား",
        "ishadi", "ishathi", "igrafu",  # Zulu
        "jaantus", "jaantuska",  # Somali
        "cairt",  # Irish
    ),
    "chart:bar": ("ਬਾਰ ਚਾਰਟ", "બાર ચાર્ટ", "ಬಾರ್ ಚಾರ್ಟ್", "ബാർ ചാർട്ട്", "គំនូសតាងរបារ", "គំនូសតាងសសរ",
                  "ແຜນພູມແທ່ງ", "ဘားဂရပ်", "ဘားချတ်"),
    "chart:pie": ("ਪਾਈ ਚਾਰਟ", "પાઇ ચાર્ટ", "પાઈ ચાર્ટ", "ಪೈ ಚಾರ್ಟ್", "പൈ ചാർട്ട്", "គំនូសតាងរង្វង់",
                  "ແຜນພູມວົງມົນ", "ပိုင်ချတ်", "ishadi likaphayi"),
    "chart:line": ("ਲਾਈਨ ਚਾਰਟ", "લાઇન ચાર્ટ", "લાઈન ચાર્ટ", "ಲೈನ್ ಚಾರ್ಟ್", "ലൈൻ ചാർട്ട്", "គំនូសតាងបន្ទាត់",
                   "ແຜນພູມເສັ້ນ", "လိုင်းဂရပ်"),
    "timeline": (
        "ਸਮਾਂਰੇਖਾ", "ਸਮਾਂ ਰੇਖਾ", "ਟਾਈਮਲਾਈਨ", "સમયરેખા", "ટાઇમલાઇન", "ಕಾಲರೇಖೆ", "ಸಮಯರೇಖೆ", "ಟೈಮ್‌ಲೈನ್",
        "ಟೈಮ್ಲೈನ್", "സമയരേഖ", "ടൈംലൈൻ", "காலவரிசை", "කාලරේඛා", "කාල රේඛා", "የጊዜ መስመር", "ጊዜ መስመር",
        "ខ្សែពេលវេលា", "ເສັ້ນເວລາ", "အချိန်လိုင်း",
        "уақыт шкаласы", "уақыт сызығы", "убакыт тилкеси", "убакыт сызыгы", "цагийн хэлхээс",
        "цаг хугацааны шугам", "хати вақт", "хати замонӣ",
        "amline", "vaqt chizigi", "vaqt chizig'i", "xronologiya", "umugqa wesikhathi", "ila akoko",
        "zaitlinn", "zaitlinie", "garis wektu", "linimasa", "jerin lokaci",
    ),
    "graph": (
        "ਨੈੱਟਵਰਕ", "નેટવર્ક", "ನೆಟ್‌ವರ್ಕ್", "ನೆಟ್ವರ್ಕ್", "ಜಾಲದ ರೂಪ", "നെറ്റ്‌വർക്ക്", "ජාලය", "ජාලයක්", "ኔትወርክ",
        "បណ្ដាញ", "ເຄືອຂ່າຍ", "ကွန်ရက်",
        "сүлжээ", "желі", "тармак", "шабака", "граф түрүндө", "граф хэлбэр",
        "tarmoq", "lionra", "netzwierk", "jaringan", "inethiwekhi", "taswirar dangantaka",
    ),
}

# Words that hold a format word in another sense (a timetable): neither a wish nor a mention.
UNREAD_SENSES: tuple[str, ...] = ("အချိန်ဇယား", "ຕາຕະລາງເວລາ", "កាលវិភាគ")
# A format word as a topic: a table of contents.
UNREAD_MENTIONS: tuple[str, ...] = ("ഉള്ളടക്കപ്പട്ടിക", "ഉള്ളടക്ക പട്ടിക")
# "no", "not needed", "don't" said after the word in Hindi, Punjabi, Gujarati, Kannada, Malayalam, Sinhala, Tamil,
# Telugu and Myanmar (their word order puts it there: "ਟੇਬਲ ਨਹੀਂ", "ಕೋಷ್ಟಕ ಬೇಡ").
UNREAD_NEGATION_AFTER: tuple[str, ...] = ("नहीं", "मत", "ਨਹੀਂ", "નહીં", "નથી", "ಬೇಡ", "ಅಲ್ಲ", "വേണ്ട", "അല്ല",
                                          "එපා", "නොවේ", "வேண்டாம்", "వద్దు", "မဟုတ်", "မလို")
