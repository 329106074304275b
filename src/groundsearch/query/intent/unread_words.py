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

import re

__all__ = ["UNREAD_KIND_NAMES", "UNREAD_WORDS", "UNREAD_SENSES", "UNREAD_MENTIONS", "UNREAD_NEGATION_AFTER"]

# Bar, pie and line names in languages whose script tier 1 matches no word of (Gujarati, Gurmukhi, Tamil, Telugu,
# Kannada, Malayalam, Sinhala, Khmer, Lao, Burmese, Amharic, Georgian, Armenian, Vietnamese) or whose kind names
# the lexicon lacks (Mongolian, Kyrgyz, Tajik, Bulgarian, Serbian, Belarusian, Malay). There the format classifier
# sees that a chart is asked, and the kind classifier guessed which: a Khmer pie became bars, a Lao bar chart a pie
# (heldout19); and Zulu. Each surface is a kind's name and means nothing else. One list for both steps: the kind
# step reads the one kind named (``kinds.unread_named``), the format step a chart of that kind ("chart:bar" …).
UNREAD_KIND_NAMES: dict[str, tuple[str, ...]] = {
    "bar": ("બાર ચાર્ટ", "બાર ગ્રાફ", "સ્તંભ આલેખ", "ਬਾਰ ਚਾਰਟ", "ਬਾਰ ਗ੍ਰਾਫ", "பட்டை வரைபட", "பார் சார்ட்",
            "பட்டை விளக்கப்பட", "బార్ చార్ట్", "బార్ గ్రాఫ్", "ಬಾರ್ ಚಾರ್ಟ್", "ಬಾರ್ ಗ್ರಾಫ್", "ബാർ ചാർട്ട്", "ബാർ ഗ്രാഫ്",
            "තීරු ප්‍රස්ථාර", "බාර් ප්‍රස්ථාර", "බාර් චාට්", "គំនូសតាងរបារ", "គំនូសតាងសសរ",
            "ແຜນພູມແທ່ງ", "ກຣາຟແທ່ງ", "ဘားဂရပ်", "ဘားချတ်", "ဘားဇယား", "የአምድ ገበታ", "የባር ገበታ", "ባር ቻርት",
            "სვეტოვანი დიაგრამ", "ზოლოვანი დიაგრამ", "სვეტური დიაგრამ", "սյունակային դիագրամ", "գոտիական դիագրամ",
            "biểu đồ cột", "biểu đồ thanh", "баганан диаграм", "багана диаграм", "баганат диаграм",
            "тилкелүү диаграмма", "мамычалуу диаграмма", "диаграммаи сутунӣ", "стълбовидна диаграм",
            "стълбова диаграм", "стубичаст", "слупкав"),
    "pie": ("પાઇ ચાર્ટ", "પાઈ ચાર્ટ", "વર્તુળ આલેખ", "ਪਾਈ ਚਾਰਟ", "வட்ட வரைபட", "பை சார்ட்", "வட்ட விளக்கப்பட",
            "పై చార్ట్", "వృత్త చిత్ర", "ಪೈ ಚಾರ್ಟ್", "ವೃತ್ತ ಚಿತ್ರ", "പൈ ചാർട്ട്", "വൃത്ത ചിത്ര", "වට ප්‍රස්ථාර",
            "පයි ප්‍රස්ථාර", "පයි චාට්", "គំនូសតាងចំណិត", "គំនូសតាងរង្វង់", "គំនូសតាងនំ", "ແຜນພູມວົງມົນ",
            "ແຜນພູມວົງກົມ", "ပိုင်ချတ်", "ပိုင်ဂရပ်", "စက်ဝိုင်းပုံ", "የፓይ ገበታ", "ፓይ ቻርት", "ክብ ገበታ",
            "წრიული დიაგრამ", "ტორტის დიაგრამ", "շրջանաձև դիագրամ", "կարկանդակային դիագրամ", "biểu đồ tròn",
            "дугуй диаграм", "бялуу диаграм", "тегерек диаграмма", "диаграммаи доиравӣ", "кръгова диаграм",
            "кружни графикон", "тортни графикон", "кругав", "ishadi likaphayi"),
    "line": ("લાઇન ચાર્ટ", "લાઈન ચાર્ટ", "રેખા આલેખ", "રેખાચિત્ર", "ਲਾਈਨ ਚਾਰਟ", "ਲਾਈਨ ਗ੍ਰਾਫ", "ਰੇਖਾ ਚਿੱਤਰ",
             "கோட்டு வரைபட", "வரி வரைபட", "லைன் சார்ட்", "లైన్ చార్ట్", "లైన్ గ్రాఫ్", "రేఖా చిత్ర", "ಲೈನ್ ಚಾರ್ಟ್",
             "ರೇಖಾ ಚಿತ್ರ", "ലൈൻ ചാർട്ട്", "ലൈൻ ഗ്രാഫ്", "രേഖാചിത്ര", "රේඛා ප්‍රස්ථාර", "රේඛීය ප්‍රස්ථාර",
             "គំនូសតាងបន្ទាត់", "គំនូសតាងខ្សែ", "ແຜນພູມເສັ້ນ", "ກຣາຟເສັ້ນ", "လိုင်းဂရပ်", "မျဉ်းဂရပ်",
             "မျဉ်းကြောင်းဂရပ်", "လိုင်းချတ်", "የመስመር ገበታ", "መስመር ግራፍ", "ላይን ቻርት", "ხაზოვანი დიაგრამ",
             "ხაზოვანი გრაფიკ", "წრფივი დიაგრამ", "գծային դիագրամ", "գծային գրաֆիկ", "biểu đồ đường",
             "шугаман диаграм", "шугаман график", "сызыктуу диаграмма", "сызыктуу график", "диаграммаи хаттӣ",
             "графики хаттӣ", "линейна диаграм", "линијски графикон", "лінейная дыяграм", "carta garis", "graf garis"),
}

_CYRILLIC = re.compile(r"[\u0400-\u04ff]")

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
    # the kind names, less the Cyrillic ones: tier 1 reads their chart word ("диаграмма", "график") as Russian's,
    # a sure wish, which an unread word would make a mere candidate
    **{f"chart:{kind}": tuple(n for n in names if not _CYRILLIC.search(n))
       for kind, names in UNREAD_KIND_NAMES.items()},
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
