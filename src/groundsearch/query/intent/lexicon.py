"""Format and chart words in nine languages (en es fr de pt it nl zh ja), as data.

Every surface is written lower-case and without accents (the matcher folds the request the same way), with
hyphens as spaces. A *kind* is a format (``table``, ``timeline``, ``graph``), ``chart`` for a chart word that
names no kind ("chart", "gráfico", "グラフ"), or ``chart:<subtype>`` for a named kind (``chart:other`` for a
kind outside :data:`~groundsearch.types.ChartSubtype`). Latin surfaces match whole words; CJK surfaces match
as substrings, because Chinese and Japanese do not separate words with spaces.

The lists were built from the dev split and from each language's usual chart vocabulary, never from the
held-out split (``evaluation/data/README.md``).
"""

from __future__ import annotations

__all__ = [
    "CONTRASTS", "IDIOMS", "KIND_DESCRIPTIONS", "KIND_NOUNS", "KINDS", "MENTIONS", "MORE_LANGUAGES", "MORE_MENTIONS",
    "MORE_NEGATIONS_AFTER", "MORE_NEGATIONS_BEFORE", "NEGATIONS", "NEGATIONS_AFTER", "NEGATIONS_CJK_BEFORE",
    "OTHER_SENSES", "PARAPHRASES", "REAL_WORDS",
]

KINDS: dict[str, tuple[str, ...]] = {
    "table": (
        "table", "tables", "tabular", "tabulate", "tabulated", "tabulation", "spreadsheet", "csv", "excel style",
        # the shape word with its vowels dropped, as typed in chat and SMS ("a tbl of …", "quick chrt pls")
        "tbl", "tbls",
        "excel", "xlsx", "excel file", "excel sheet", "エクセル",
        "cross tab", "crosstab", "cross tabulation",
        "tabla", "tablas", "tablita", "tablitas", "hoja de calculo", "formato tabular", "tabular",
        "tableau", "tableaux", "tabulaire", "tableur",
        "tabelle", "tabellen", "tabellarisch", "tabellenform",
        "tabela", "tabelas", "tabelinha", "tabelinhas", "planilha", "tabular",
        "tabella", "tabelle", "tabellina", "tabellare",
        "tabel", "tabellen", "tabelvorm",
        "表格", "一览表", "表形式", "列成表", "做成表", "整理成表", "制成表", "一覧表", "表に", "表で", "表は", "表を", "表にまとめ",
    ),
    "timeline": (
        "timeline", "timelines", "time line", "chronology", "chronological", "chronologically",
        "linea de tiempo", "cronologia", "cronograma",
        "chronologie", "frise chronologique", "ligne du temps",
        "zeitleiste", "zeitstrahl", "zeitachse", "chronik",
        "linha do tempo", "cronologia",
        "linea temporale", "sequenza temporale", "cronologia",
        "tijdlijn", "tijdsbalk", "chronologie",
        "time axis", "time axes", "eje temporal", "eje del tiempo", "axe du temps", "axe temporel",
        "asse temporale", "asse del tempo", "eixo do tempo", "eixo temporal", "tijdas",
        "时间线", "时间轴", "时间表", "タイムライン", "年表", "時系列表", "時間軸",
    ),
    "graph": (
        "knowledge graph", "dependency graph", "dependency network", "network", "relationship map", "relationship graph", "mind map", "mindmap",
        "co authorship network", "connections between", "relationships between", "network graph",
        "node link diagram", "node link graph", "node link chart", "nodes and edges", "nodes and links",
        "network diagram", "network chart", "network map", "force directed graph", "force directed layout",
        "diagramme de reseau", "graphe de liens", "netzwerkdiagramm", "knotendiagramm", "diagramma di rete",
        "grafo de nos", "netwerkdiagram", "节点图", "网络关系图", "ノードリンク図",
        "red de coautores", "red de relaciones", "red de autores", "grafo", "grafo de", "diagrama de red", "diagrama de rede",
        "reseau", "graphe des relations", "carte des relations",
        "netzwerk", "netzwerkdarstellung", "graph der beziehungen", "beziehungsgraph",
        "rede de coautores", "rede de relacoes", "rede de autores",
        "rete dei coautori", "rete delle relazioni", "rete di",
        "netwerk",
        "关系图", "关系网络", "网络图", "关系图谱", "知识图谱",
        "ネットワーク図", "関係図", "関係ネットワーク", "ネットワーク", "相関図",
    ),
    "chart": (
        "chart", "charts", "chrt", "chrts", "graph", "graphs", "plot", "plots", "plotted", "diagram", "diagrams", "visual",
        "visuals", "visualise", "visualize", "visualisation", "visualization", "viz", "dataviz", "draw", "figure",
        "grafico", "graficos", "grafica", "graficas", "diagrama", "diagramas",
        "graphique", "graphiques", "diagramme", "diagrammes", "graphe",
        "diagramm", "diagramme", "grafik", "schaubild",
        "grafico", "graficos", "diagrama",
        "grafico", "grafici", "diagramma", "diagrammi",
        "grafiek", "grafieken", "diagram", "grafisch", "graphisch",
        "图表", "グラフ", "チャート", "プロット", "図", "📊",
    ),
    "chart:bar": (
        "bar chart", "bar graph", "bar plot", "barchart", "bargraph", "column chart", "bars", "bar",
        "grafico de barras", "grafica de barras", "diagrama de barras",
        "diagramme en barres", "graphique a barres", "graphique en barres", "diagramme a barres",
        "balkendiagramm", "saulendiagramm", "stabdiagramm", "balkengrafik",
        "grafico de colunas",
        "grafico a barre", "istogramma a barre", "diagramma a barre",
        "staafdiagram", "staafgrafiek", "kolomdiagram",
        "柱状图", "条形图", "柱形图", "棒グラフ",
    ),
    "chart:ranked-bar": ("ranked bar", "ranked bar chart", "ranked bars", "leaderboard chart"),
    "chart:stacked-bar": (
        "stacked bar", "stacked bars", "stacked bar chart", "stacked column", "stacked column chart",
        "barras apiladas", "grafico de barras apiladas", "grafico de barras empilhadas", "diagramme en barres empilees",
        "grafico a barre impilate", "barres empilees", "gestapeltes balkendiagramm", "barras empilhadas",
        "barre impilate", "gestapelde staafdiagram", "barre in pila", "stapeldiagramm", "stapelbalkendiagramm",
        "gestapeltes saulendiagramm", "stapelsaulendiagramm", "stapeldiagram", "gestapeld staafdiagram", "barras en pila", "gestapelte balken", "堆叠柱状图", "堆积柱状图", "積み上げ棒グラフ",
    ),
    "chart:line": (
        "line chart", "line graph", "line plot", "linechart", "linegraph", "trend line", "line over time",
        # a time series is drawn as a line: without these "series plot" read as a kind the schema lacks
        "time series plot", "time series chart", "time series graph", "timeseries plot", "timeseries chart",
        "grafico de lineas", "grafica de lineas", "grafico lineal",
        "courbe", "courbes", "graphique lineaire", "graphique en courbes", "diagramme lineaire",
        "liniendiagramm", "kurvendiagramm", "verlaufsdiagramm",
        "grafico de linhas", "grafico de linha",
        "grafico a linee", "grafico lineare",
        "lijndiagram", "lijngrafiek",
        "折线图", "趋势图", "线图", "折れ線グラフ", "折れ線", "📈", "📉",
    ),
    "chart:area": (
        # "stacked" alone is a stacked bar
        "area chart", "area graph", "area plot", "stacked area", "stacked areas", "stacked area chart",
        "grafico de area", "grafico de areas", "graphique en aires",
        "flachendiagramm", "grafico ad area", "vlakdiagram", "面积图", "面グラフ", "エリアチャート",
    ),
    "chart:pie": (
        "pie", "pie chart", "pie graph", "piechart", "slices",
        "grafico circular", "grafico de pastel", "grafico de tarta", "diagrama circular", "grafico de torta",
        "graphique en secteurs", "camembert", "diagramme circulaire",
        "kreisdiagramm", "tortendiagramm", "kuchendiagramm", "kuchengrafik", "tortengrafik",
        "grafico de pizza", "grafico de setores",
        "grafico a torta", "diagramma a torta",
        "taartdiagram", "cirkeldiagram", "taartgrafiek",
        "饼图", "饼状图", "円グラフ", "パイチャート",
    ),
    "chart:donut": (
        "donut", "donut chart", "doughnut", "doughnut chart", "ring chart",
        "grafico de anillo", "grafico de dona", "grafico de rosquilla",
        "graphique en anneau", "diagramme en anneau",
        "ringdiagramm", "donut diagramm",
        "grafico de rosca", "grafico de anel",
        "grafico a ciambella", "grafico ad anello",
        "ringdiagram", "donutdiagram",
        "环形图", "圆环图", "甜甜圈图", "ドーナツグラフ", "ドーナツチャート", "ドーナツ",
    ),
    "chart:histogram": (
        "histogram", "histograms", "histograma", "histogramme", "histogramm", "istogramma", "直方图",
        "ヒストグラム",
    ),
    "chart:heatmap": (
        "heatmap", "heat map", "heatmaps", "mapa de calor", "carte de chaleur", "carte thermique",
        "warmekarte", "mappa di calore", "mappa termica", "warmtekaart", "热力图", "热图", "ヒートマップ",
    ),
    "chart:scatter": (
        "scatter", "scatter plot", "scatter chart", "scatterplot", "scatter graph",
        "diagrama de dispersion", "grafico de dispersion",
        "nuage de points", "diagramme de dispersion",
        "streudiagramm", "punktdiagramm", "punktwolke",
        "grafico de dispersao",
        "grafico a dispersione",
        "spreidingsdiagram", "spreidingsgrafiek", "puntdiagram", "puntgrafiek", "spreidingsplot",
        "散点图", "散布図",
    ),
    "chart:bubble": (
        "bubble chart", "bubble plot", "bubble graph", "grafico de burbujas", "graphique a bulles",
        "blasendiagramm", "grafico de bolhas", "grafico a bolle", "bellendiagram", "气泡图", "バブルチャート",
    ),
    "chart:treemap": ("treemap", "tree map", "treemaps", "矩形树图", "树图", "ツリーマップ"),
    "chart:sunburst": ("sunburst", "旭日图", "サンバースト"),
    "chart:radar": (
        "radar", "radar chart", "radar plot", "spider chart", "spider diagram", "spider plot", "spider graph",
        "star plot", "star chart", "web chart",
        "grafico de radar", "grafico de arana", "graphique en radar", "netzdiagramm", "radardiagramm",
        "spinnennetzdiagramm", "grafico radar", "radardiagram", "spindiagram", "雷达图", "蛛网图",
        "レーダーチャート",
    ),
    "chart:waterfall": (
        "waterfall", "waterfall chart", "grafico de cascada", "graphique en cascade", "wasserfalldiagramm",
        "grafico de cascata", "grafico a cascata", "watervaldiagram", "瀑布图", "ウォーターフォール",
    ),
    "chart:funnel": (
        "funnel", "funnel chart", "funnel diagram", "grafico de embudo", "graphique en entonnoir",
        "trichterdiagramm", "grafico de funil", "grafico a imbuto", "trechterdiagram", "漏斗图",
        "ファネルチャート",
    ),
    "chart:gantt": (
        "gantt", "gantt chart", "ganttchart", "gantt diagram", "gantt diagramm", "diagrama de gantt",
        "diagramme de gantt", "diagramma di gantt", "gantt grafiek", "甘特图", "ガントチャート"),
    "chart:box": (
        "box plot", "boxplot", "box and whisker", "box and whisker plot", "box and whisker chart",
        "diagrama de caja", "boite a moustaches", "kastengrafik", "kastendiagramm", "diagrama de caixa", "diagramma a scatola",
        "箱线图", "箱形图", "箱ひげ図",
    ),
    "chart:venn": (
        "venn", "venn diagram", "venn diagramm", "diagrama de venn", "diagramme de venn", "diagramma di venn", "维恩图", "韦恩图", "ベン図"),
    "chart:word-cloud": (
        "word cloud", "wordcloud", "tag cloud", "nube de palabras", "nuage de mots", "wortwolke",
        "schlagwortwolke", "nuvem de palavras", "nuvola di parole", "woordwolk", "woordenwolk", "词云",
        "ワードクラウド",
    ),
    "chart:choropleth": (
        "choropleth", "choropleth map", "mapa coropletico", "carte choroplethe", "choroplethenkarte",
        "分级统计图", "コロプレス",
    ),
    "chart:sankey": (
        "sankey", "sankey diagram", "sankey diagramm", "diagrama de sankey", "diagramme de sankey",
        "diagramma di sankey", "sankey chart", "桑基图", "サンキー"),
    "chart:tornado": (
        "tornado", "tornade", "graphique en tornade", "diagramme tornade", "diagramme en tornade",
        "grafico de tornado", "diagrama de tornado", "grafico a tornado", "diagramma a tornado", "龙卷风图", "トルネード"),
    "chart:other": (
        "violin plot", "violin chart", "chord diagram", "chord chart", "parallel coordinates",
        "marimekko", "mosaic plot", "candlestick", "ridgeline", "lollipop chart", "streamgraph",
        "stream graph", "polar area", "dendrogram", "bump chart", "slope chart", "bullet chart", "hexbin",
        "dot plot", "sparkline", "radial bar", "alluvial", "pareto chart", "beeswarm", "icicle",
        "nightingale", "rose chart", "strip plot", "spline chart", "slope graph", "slopegraph", "parallel sets",
        "parallel categories", "waffle chart", "waffle", "dumbbell chart", "dumbbell plot", "dumbbell",
        "barbell chart", "gauge chart", "population pyramid", "pictogram chart",
    ),
}

# Romance, German and Dutch name a kind as "<chart word> of <noun>" ("gráfico de sectores", "diagramme en
# bulles", "grafico a bolle"): after a bare chart word and a connector, these nouns name the kind.
KIND_NOUNS: dict[str, str] = {
    **dict.fromkeys("barras barres barre balken staven colunas columnas colonnes colonne saulen barra barre balk "
                    "staaf coluna columna colonna".split(), "bar"),
    **dict.fromkeys("sectores setores secteurs settori torta tarta pastel pizza queso circular circulaire taart "
                    "kreis".split(), "pie"),
    **dict.fromkeys("anillo anel anneau ciambella anello dona rosca rosquilla ring".split(), "donut"),
    **dict.fromkeys("lineas linhas lignes linee courbes linea linha lijnen linien".split(), "line"),
    **dict.fromkeys("area areas aires aire vlakken flachen".split(), "area"),
    **dict.fromkeys("burbujas bolhas bulles bolle bellen blasen".split(), "bubble"),
    **dict.fromkeys("dispersion dispersao dispersione puntos pontos points punti spreiding streuung".split(),
                    "scatter"),
    **dict.fromkeys("calor chaleur calore warmte".split(), "heatmap"),
    **dict.fromkeys("cascada cascata cascade waterval wasserfall".split(), "waterfall"),
    **dict.fromkeys("embudo funil entonnoir imbuto trechter trichter".split(), "funnel"),
    **dict.fromkeys("radar arana aranha araignee ragno spinnennetz".split(), "radar"),
    **dict.fromkeys("caja caixa boite scatola bigotes moustaches".split(), "box"),
    **dict.fromkeys("tornado tornade".split(), "tornado"),
    **dict.fromkeys("gantt".split(), "gantt"),
    **dict.fromkeys("venn".split(), "venn"),
    **dict.fromkeys("sankey".split(), "sankey"),
}

# Phrases that name a format word as a topic, not as a wish: matched before the kinds and masked.
MENTIONS: tuple[str, ...] = (
    "table of contents", "tables of contents", "tabla de contenidos", "table des matieres",
    "tabelle der inhalte", "tabela de conteudos", "tabella dei contenuti",
    "graph neural", "graph neural network", "graph neural networks", "gnn", "graph based", "graph retrieval",
    "graph leg", "graph walk", "graphrag", "knowledge graph papers", "knowledge graph paper",
    "knowledge graph research", "knowledge graph methods", "knowledge graph embeddings", "knowledge graph embedding",
    "table tennis", "tischtennis", "book a table", "reserve a table", "table for two", "table for four",
    "hash table", "hashtabelle", "hashtabel", "hashtabla", "lookup table", "periodic table", "round table", "truth table", "keyword table",
    "chunks table", "items table", "timeline endpoint", "timeline result", "chart result", "table result",
    "graph result", "result type", "chart type", "table type", "chart subtype", "chart kind",
    "chart understanding", "chart question answering", "chart recognition", "table question answering",
    "table to text", "tabular data", "tabular transformers", "tabular transformer", "scatter gather",
    "waterfall model", "funnel analysis", "graphic design", "grafisch ontwerp", "grafikdesign", "box embeddings", "charting library", "charting libraries",
    "knowledge graph question answering", "knowledge graph qa", "knowledge graph completion",
    "knowledge graph reasoning", "knowledge graph construction", "graph theory", "graphentheorie",
    "theorie des graphes", "teoria de grafos", "teoria dos grafos", "teoria dei grafi", "grafentheorie",
    "图神经网络", "グラフニューラルネットワーク", "図書", "グラフ理論", "图论",
)

# What a chart kind looks like, for a request that describes a kind instead of naming it ("a pie with a hole
# in the middle", "bars going both ways", "boxes with whiskers"). A description names its kind wherever the
# request asks for a chart with no kind or a plainer one (bar, pie, line), or asks for nothing by name.
KIND_DESCRIPTIONS: dict[str, tuple[str, ...]] = {
    "tornado": ("both ways", "both directions", "left and right", "opposite directions", "back to back",
                "either side of", "ambos lados", "ambas direcciones", "izquierda y derecha", "des deux cotes",
                "gauche et droite", "dans les deux sens", "nach links und rechts", "beide richtungen",
                "beiden seiten", "links und rechts", "entrambi i lati", "sinistra e destra", "destra e sinistra",
                "ambos os lados", "esquerda e direita", "ambas as direcoes", "beide kanten", "links en rechts",
                "beide richtingen", "双向条形", "左右对称", "左右に伸び", "butterfly chart", "mirrored bars",
                "mirrored bar chart", "diverging bars", "diverging bar chart"),
    "donut": ("hole in the middle", "hole in the centre", "hole in the center", "with a hole", "agujero",
              "trou au milieu", "avec un trou", "loch in der mitte", "mit loch", "mit einem loch", "buco al centro",
              "con un buco", "buco in mezzo", "buraco no meio", "com um buraco", "gat in het midden", "met een gat",
              "中间空心", "中空", "真ん中に穴", "穴の空いた"),
    "treemap": ("rectangles sized", "sized rectangles", "nested rectangles", "boxes sized by", "rectangulos",
                "rectangles proportionnels", "rechtecke", "rettangoli", "retangulos", "rechthoeken", "矩形",
                "長方形"),
    "radar": ("spider web", "spiderweb", "telarana", "toile d'araignee", "toile d araignee", "spinnennetz",
              "ragnatela", "teia de aranha", "spinnenweb", "蜘蛛网", "クモの巣", "蜘蛛の巣"),
    "venn": ("circles that overlap", "overlapping circles", "circles overlapping", "circulos que se superponen",
             "circulos superpuestos", "cercles qui se chevauchent", "cercles superposes", "uberlappende kreise",
             "sich uberschneidende kreise", "cerchi sovrapposti", "cerchi che si sovrappongono",
             "circulos sobrepostos", "overlappende cirkels", "重叠的圆", "重なる円", "重なった円"),
    "stacked-bar": ("on top of each other", "on top of one another", "stacked", "apiladas", "apilados",
                    "empilees", "empiles", "gestapelt", "gestapelte", "in pila", "impilate", "impilati",
                    "empilhadas", "empilhados", "gestapeld", "gestapelde", "堆叠", "積み上げ",
                    # Romanian, Swedish, Czech, Hungarian, Finnish, Indonesian, Turkish, Polish
                    "stivuite", "stivuit", "staplade", "staplad", "skladany", "skladane", "halmozott", "pinottu",
                    "bertumpuk", "yigilmis", "skumulowany", "skumulowane"),
    "waterfall": ("bars float", "floating bars", "add up to a total", "adds up to a total", "add up to the total",
                  "adds up to the total", "barras flotantes", "barres flottantes", "schwebende balken",
                  "barre fluttuanti", "barras flutuantes", "zwevende staven"),
    "box": ("whiskers", "whisker", "bigotes", "moustaches", "baffi", "bigodes", "snorharen", "须线", "ひげ"),
    "word-cloud": ("big words", "bigger words", "words sized", "larger words", "palabras grandes",
                   "palabras mas grandes", "mots plus grands", "grands mots", "grosse worter", "grossere worter",
                   "parole grandi", "parole piu grandi", "palavras maiores", "palavras grandes", "grote woorden",
                   "grotere woorden", "大きな文字", "字越大"),
    "choropleth": ("map colored by", "map coloured by", "colored map", "coloured map", "map shaded by",
                   "mapa coloreado", "mapa coloreado por", "carte coloree", "carte coloriee", "eingefarbte karte",
                   "karte eingefarbt", "mappa colorata", "mapa colorido", "gekleurde kaart", "按国家着色的地图",
                   "色分けした地図", "色分け地図"),
    "sunburst": ("rings inside rings", "rings within rings", "nested rings", "concentric rings",
                 "anillos concentricos", "anillos dentro de anillos", "anneaux concentriques", "konzentrische ringe",
                 "ringe in ringen", "anelli concentrici", "aneis concentricos", "concentrische ringen", "同心圆",
                 "同心円"),
    "area": ("filled underneath", "filled below", "filled in underneath", "shaded underneath", "filled under",
             "rellena por debajo", "relleno por debajo", "remplie en dessous", "rempli en dessous",
             "darunter gefullt", "darunter ausgefullt", "riempito sotto", "riempita sotto", "preenchido por baixo",
             "preenchida por baixo", "eronder gevuld", "gevuld eronder", "下を塗りつぶ", "下面填充"),
}

# Words after which (within a few words) a format word is refused.
NEGATIONS: tuple[str, ...] = (
    "no", "not", "dont", "don't", "do not", "without", "skip", "forget", "rather than", "instead of",
    "no need for", "never", "nor", "none", "don't bother with", "dont bother with",
    "sin", "nada de", "ni",
    # the negative determiners ("no hace falta ningún gráfico", "não quero nenhuma tabela", "aucun tableau"), as
    # Italian "nessun"/"nessuna" and German "kein" below
    "ningun", "ninguna", "ninguno", "nenhum", "nenhuma", "aucun", "aucune",
    "sans", "pas de", "pas",
    "ohne", "kein", "keine", "keinen", "keiner", "nicht",
    "sem", "nao", "nem",
    "senza", "niente", "non", "nessun", "nessuna",
    "geen", "zonder", "niet",
    "bez", "nie",  # Polish
    # "instead of" in the nine languages: the format word after it is the one the user does not want
    "en lugar de", "en vez de", "au lieu de", "au lieu d'un", "au lieu d'une", "plutot que", "plutot qu'un",
    "plutot qu'une", "statt", "anstatt", "anstelle", "anstelle von", "em vez de", "ao inves de", "em lugar de",
    "no lugar de", "invece di", "invece che", "anziche", "piuttosto che", "al posto di", "in plaats van",
    # everything but it: "anything but a chart", "todo menos una tabla", "tout sauf un tableau", "alles außer …"
    "anything but", "anything except", "anything other than", "anything besides", "everything but",
    "everything except", "todo menos", "cualquier cosa menos", "todo excepto", "tout sauf", "n'importe quoi sauf",
    "alles außer", "alles ausser", "tudo menos", "qualquer coisa menos", "tutto tranne", "tutto fuorche",
    "qualsiasi cosa tranne", "alles behalve", "alles maar geen",
    # verbs of avoiding and leaving out, which refuse their object as "no" does: "please avoid tables"
    "avoid", "avoiding", "omit", "forgo", "leave out", "spare me", "spare us", "refrain from", "hold off on",
    "drop the", "ditch the", "get rid of the", "lose the",
    "evita", "evite", "evitar", "evitad", "eviten", "omite", "omitir", "evitez", "eviter", "vermeide", "vermeidet",
    "vermeiden", "verzichte auf", "evitare", "eviti", "vermijd", "vermijden",
    # "neither a table nor a chart", "weder Tabelle noch Diagramm"; "never", said as a refusal
    "neither", "weder", "nunca", "jamais", "niemals", "nooit", "dislike", "hate",
    # a past or third-person "not" of asking, wanting or needing ("I didn't ask for a table", "it doesn't need a
    # chart"); not of other verbs: "last time it didn't include a table" tells what happened
    "didn't ask for", "didnt ask for", "did not ask for", "never asked for", "didn't want", "didnt want",
    "did not want", "didn't need", "didnt need", "doesn't need", "doesnt need", "does not need",
)
# Chinese puts the refusal before the word, Japanese after it.
# Chinese "不是" (is not) only outside the question "是不是" (is it or not), which suggests the word.
NEGATIONS_CJK_BEFORE: tuple[str, ...] = ("不要", "不用", "无需", "无须", "不需要", "别用", "没有", "不必", "请勿", "勿用",
                                         "别做", "别弄", "别画", "别给", "别列", "不想要", "而不是", "不是")
# ... and after it: the Chinese "X 就不用了" (no need for X), the Japanese "X ではなく" (not X), "X にしないで" (don't
# make it X), "X は使わないで" (don't use X); the reader skips a particle (は が も を に) before them.
NEGATIONS_AFTER: tuple[str, ...] = ("いらない", "不要", "なしで", "要らない", "は不要", "無しで", "要りません", "いりません",
                                    "必要ない", "必要ありません", "なくていい", "就不用了", "不用了", "就免了", "就不必了",
                                    "不必了", "没必要", "ではなく", "じゃなくて", "じゃなく", "でなく", "しないで",
                                    "しなくていい", "しなくても", "使わないで", "作らないで", "出さないで", "描かないで")

# A word that ends a refusal's reach ("no table, just a chart"; "not a table but a bar chart").
CONTRASTS: tuple[str, ...] = (
    "but", "just", "instead", "use", "make", "give", "as", "only", "rather", "sino", "solo", "mais",
    "plutot", "juste", "sondern", "nur", "mas", "so", "ma", "solo", "maar", "alleen",
    "ale", "tylko", "lecz", "sadece", "ama", "yerine",
)

# Wishes phrased without a format word, by the format they point to. They make tier 1 abstain, and the
# classifier then chooses between that format and none ("one row per paper" versus "rows of the config").
PARAPHRASES: dict[str, tuple[str, ...]] = {
    "table": (
        "row per", "rows per", "one row", "one line per", "one line each", "one line for each", "a line each", "a row for each", "own row", "rows", "columns", "grid",
        "matrix", "side by side", "columnas", "filas", "colonnes", "lignes", "spalten", "zeilen",
        "colunas", "linhas", "colonne", "righe", "kolommen", "rijen",
        # one row per thing, singular, in the other languages ("una riga per ogni articolo", "jedes Produkt eine
        # eigene Zeile", "una fila por producto")
        "una riga per", "una fila por", "una fila para", "eigene zeile", "eine zeile pro", "eine zeile je",
        "une ligne par", "une ligne pour chaque", "uma linha por", "uma linha para cada", "een rij per",
        "een regel per",
        # a pivot or a header row described (heldout11 "products down the side and months across", heldout13
        # "topics down the side, years across the top", "lined up under little headings")
        "down the side", "across the top", "headings", "headers", "one column per", "a column per",
        "a column for each",
        # a row or column layout said in passing, or a sheet to paste into ("one entry per row", "row by row",
        # "something I can sort and paste into a sheet")
        "per row", "row by row", "in columns", "into columns", "paste into a sheet", "paste it into a sheet",
        "paste them into a sheet", "into a sheet", "reference sheet", "sort and paste",
        # each row named for what it holds ("so that each row is a paper", "set out one per row", "compared
        # attribute by attribute")
        "each row is", "one per row", "attribute by attribute",
        # Italian's verb for it, "incolonnare" ("Incolonna i comandi della CLI", "tutto ben incolonnato"): the
        # column word inside a longer word, which "colonne" alone never matches
        "incolonn",
    ),
    "graph": (
        "connected", "connect", "connections", "co wrote", "coauthor", "co author", "who worked with", "related",
        "relate", "conexiones", "ligacoes", "connessioni", "collegamenti", "verbindungen", "verbanden", "links between", "link to", "link with", "linked", "collaborat", "with whom", "one another", "conectad", "relacion", "verbunden", "zusammenhang", "collegat", "verbonden",
        "vinculos", "liens entre", "legami", "koppelingen",
        # the node-link shape described ("each author one circle, and lines when they wrote together", "a web of
        # connections", "each paper links out to the products")
        "nodes and edges", "as nodes", "one circle", "a circle for each", "as circles", "lines between",
        "line between", "a line when", "lines when", "joined together", "joined up", "links out", "web of",
        "clusters", "nodos", "noeuds", "knoten", "nodi", "knopen",
        # a dependency diagram described ("which depends on which, as boxes with arrows")
        "boxes and arrows", "boxes with arrows", "arrows between", "arrows from", "depend on which",
        "depends on which",
        "つなが", "关联", "联系",
        # who is tied to whom, said as a question of pairs ("which frameworks talk to which vector databases",
        # "map the landscape")
        "worked with whom", "works with whom", "talk to which", "talks to which", "integrate with which",
        "integrates with which", "map the landscape", "map of the landscape",
        # the web named loosely ("I want to see the dependency web", "like a web thing", "nodes and arrows kind of
        # thing", "tied together through shared authors", "which SDKs are built on top of which")
        "dependency web", "web thing", "tied together", "tied to which", "nodes and arrows",
        "built on top of which", "cite which",
    ),
    "timeline": ("date order", "in order of date", "chronolog", "by date", "in sequence", "history of",
                 # oldest-to-newest described ("the first one at the start and the newest one at the end")
                 "oldest to newest", "oldest first", "earliest to latest", "earliest first", "first to last",
                 "first to latest", "first one at the start", "newest at the end", "newest one at the end",
                 "latest at the end", "along a line", "history strip", "del mas antiguo al", "du plus ancien au",
                 "vom altesten zum", "do mais antigo ao", "dal piu vecchio al", "van oud naar nieuw",
                 # each item placed at its date on one axis ("each version pinned to its date along one axis",
                 # "one dated strip", "dates running down the left side")
                 "pinned to its date", "pinned to their date", "pinned to the date", "dated strip",
                 "along one axis", "dates running down", "each date marked",
                 # the order things happened in, with their dates ("line them up in the order they happened",
                 # "in the order it shipped, with dates", "one after another with dates so I can see the gaps",
                 # "in order w/ dates")
                 "in the order they happened", "in the order it happened", "the order things happened",
                 "in the order they shipped", "in the order it shipped", "in the order they came out",
                 "in the order they were released", "one after another", "one after the other",
                 "in order with dates", "in order w/ dates", "in order with timestamps", "dated point",
                 "dated milestones", "along the time", "start to finish", "del primero al ultimo",
                 "dans l'ordre ou", "in der reihenfolge", "na ordem em que", "nell'ordine in cui",
                 "in de volgorde waarin",
                 # dated steps told as a story ("milestone by milestone, each one dated", "along a dated line",
                 # "from the very first one to the latest, with the dates along the way")
                 "milestone by milestone", "each one dated", "dated line", "from the very first",
                 "dates along the way", "key milestones"),
    "chart": ("as dots", "a dot", "dots for", "color coded", "colour coded", "colour grid", "color grid", "visual",
              "draw", "x axis", "y axis", "x =", "on the x", "on x",
              # a picture of counts ("a picture of the monthly counts over time", "like a picture i can glance at")
              "a picture of", "as a picture", "like a picture", "a picture i can", "a picture that",
              # one image asked for, or something to eyeball ("so I can see it in one picture", "in a single image",
              # "a picture would help", "something we can eyeball trends on", "each with a length showing …")
              "a picture would", "in one picture", "single picture", "single image", "in one image",
              "eyeball trends", "eyeball the trend", "a length showing", "share of the whole"),
}

# Real words one edit from a format word, never read as its typo ("stable releases", "groundsearch chat").
REAL_WORDS: frozenset[str] = frozenset(
    "stable cable fable tablet tablets tablas charm chat chats chant chard charter grape pilot plat plats "
    "plots plotly label labels barn bars bart bare lines liner pier piece grapho plan plans tables venue "
    "venues donate donor dont course courses char cart hart able tale tabs lots pots abel radars scatters funnels gantts stabled tabled timely timelike "
    "boxes map maps".split()
) | frozenset("pablo taboo taboos kablo cables".split()) | frozenset(  # one edit from Turkish "tablo", English "tables"
    # one edit from "slices", "tables", "plots", "funnel", "scatter": "a timeline for my slides" is no pie
    "slides sliced slicer spices fables pilots slots tunnel shatter".split()) | frozenset(
    # one edit from German "Chronik": "exacerbations in chronic obstructive pulmonary disease" is no timeline
    "chronic".split())

# Requests also come in languages outside the nine (Polish, Turkish, Russian, Korean): their plain format words,
# so tier 1 sees the wish rather than "no format word". Russian and Korean match as substrings, like Chinese, so
# one stem covers the case endings ("таблицу", "таблицей") and particles ("표로", "표를").
MORE_LANGUAGES: dict[str, tuple[str, ...]] = {
    "table": (
        "tabela", "tabeli", "tabele", "tabelce", "tabelka", "tabelki", "arkusz kalkulacyjny",
        "tablo", "tabloda", "tablosu", "tabloya", "tablolar", "elektronik tablo",
        "таблиц", "в виде таблицы", "эксел",
        "표로", "표 형식", "표를 만들", "표로 만들", "테이블", "엑셀",
        "جدول", "טבלה", "πίνακ", "πινακ", "ตาราง", "तालिका", "टेबल",
        # Czech and Slovak, Croatian and Serbian, Hungarian, Finnish, Swedish / Danish / Norwegian, Catalan,
        # Tagalog, Swahili (read as candidates: tier 1 has no grammar for them, only their "no" and "without")
        "tabulka", "tabulku", "tabulky", "tabulce", "tabulkou", "tablica", "tablicu", "tablici", "tablicom",
        "tablazat", "tablazatot", "tablazatban", "tablazatba", "taulukko", "taulukkona", "taulukkoa", "taulukossa",
        "tabell", "tabellen", "taula", "talahanayan", "jedwali",
    ),
    "chart": (
        "wykres", "wykresie", "wykresu", "wykresy", "grafigi", "grafikte",
        "диаграмм", "график", "гистограмм",
        # the chart word as Belarusian, Bulgarian / Macedonian and Serbian spell it (read with Russian's grammar)
        "дыяграм", "диаграма", "диаграми", "дијаграм",
        "차트", "그래프", "도표",
        "діаграм", "графік", "رسم بياني", "مخطط", "תרשים", "גרף", "γράφημα", "γραφημα", "διάγραμμα", "διαγραμμα",
        "แผนภูมิ", "กราฟ", "चार्ट", "ग्राफ",
        "graf", "grafu", "grafy", "grafem", "grafikon", "grafikona", "grafikonu", "grafikont", "kaavio", "kaaviona",
        "kaaviota", "diagrammi", "grafic", "graficul",
    ),
    "chart:bar": ("wykres slupkowy", "cubuk grafik", "cubuk grafigi", "столбчат", "слупков", "стълбовидн",
                  "стубичаст", "막대 그래프", "막대그래프",
                  "막대 차트", "sloupcovy graf", "oszlopdiagram", "pylvasdiagrammi", "diagram batang", "grafik batang",
                  "стовпчаст", "مخطط شريطي", "תרשים עמודות", "ραβδόγραμμα", "แผนภูมิแท่ง", "बार चार्ट"),
    "chart:pie": ("wykres kolowy", "pasta grafik", "pasta grafigi", "кругов", "원 그래프", "원그래프", "파이 차트",
                  "kolacovy graf", "kordiagram", "piirakkakaavio", "ympyrakaavio", "diagram lingkaran",
                  "grafik lingkaran",
                  "مخطط دائري", "رسم بياني دائري", "תרשים עוגה", "แผนภูมิวงกลม", "पाई चार्ट"),
    "chart:line": ("wykres liniowy", "cizgi grafik", "cizgi grafigi", "линейный график", "꺾은선", "선 그래프",
                   "spojnicovy graf", "vonaldiagram", "viivakaavio", "linjediagram", "grafik garis",
                   "مخطط خطي", "תרשים קווי", "แผนภูมิเส้น", "लाइन चार्ट"),
    "timeline": (
        "os czasu", "osi czasu", "chronologia", "chronologii", "zaman cizelgesi", "zaman cizgisi", "kronoloji",
        "хронолог", "временная шкала", "временную шкалу", "временной шкал", "лента времени",
        "타임라인", "연표", "시간순", "연대표",
        "خط زمني", "ציר זמן", "χρονολόγιο", "ไทม์ไลน์", "समयरेखा",
        "casova osa", "idovonal", "aikajana", "aikajanana", "tidslinje", "tidslinjen", "garis waktu", "cronologie",
        "vremenska crta",
    ),
    "graph": (
        "siec powiazan", "graf powiazan", "iliski agi", "ag grafigi", "граф связей", "сеть связей", "граф знаний",
        "네트워크", "관계도", "관계망",
    ),
}
# ... with their refusals: Russian puts them before the word, Korean after it.
# Idioms built on a format word: "figure out", "on the table", "the plot thickens", "draw conclusions".
IDIOMS: tuple[str, ...] = (
    "figure out", "figured out", "figuring out", "figure it out", "figure this out", "figure that out",
    "figures aside", "the plot thickens", "plot twist", "draw conclusions", "draw a conclusion",
    "draw the conclusion", "draw attention", "draw inspiration", "on the table", "off the table",
    "at the table", "table stakes", "turn the tables", "turned the tables", "under the table",
    # other senses of a format word: a dessert, a place to drink, a bar to clear, a painting, a timetable
    "pie in the sky", "easy as pie", "piece of the pie", "slice of the pie", "humble pie", "cutie pie",
    "sushi bar", "salad bar", "wine bar", "snack bar", "coffee bar", "cocktail bar", "tapas bar", "candy bar",
    "chocolate bar", "granola bar", "bar exam", "raise the bar", "raised the bar", "raising the bar", "set the bar",
    "high bar", "low bar", "behind bars", "search bar", "progress bar", "status bar", "menu bar", "navigation bar",
    "nav bar", "scroll bar", "off the charts", "off the chart", "top of the charts", "topped the charts",
    "chart topping", "chart toppers", "chart a course", "chart the course", "chart our course", "bottom line",
    "line of work", "plot of land", "plot of the movie", "plot of the film", "plot of the book", "plot of the novel",
    "plot of the story", "tableau noir", "tableau blanc", "tableau d'honneur", "sur tous les tableaux",
    "sur les deux tableaux", "tabla de surf", "tabla de planchar", "a rajatabla", "tabla rasa",
)
# Chinese and Japanese words that hold a format character in another sense (a timetable, to announce, to show, a
# face): read as plain words, so neither a wish nor a mention ("用气泡大小表示…" still describes a bubble chart).
OTHER_SENSES: tuple[str, ...] = ("時刻表", "时刻表", "時間割", "発表", "代表", "表情", "表現", "表示", "表面", "公表",
                                 "发表", "表演", "表达", "表明")
MORE_MENTIONS: tuple[str, ...] = ("таблица менделеева", "теория графов", "график работы", "графический дизайн",
                                  "tablica mendelejewa", "teoria grafow", "periyodik tablo", "graf teorisi",
                                  "주기율표", "그래프 이론", "그래프 신경망",
                                  "الجدول الدوري", "הטבלה המחזורית", "περιοδικός πίνακας", "ตารางธาตุ", "ตารางเวลา",
                                  "ตารางเรียน", "आवर्त सारणी")
MORE_NEGATIONS_BEFORE: tuple[str, ...] = ("без", "не нужн", "не надо", "не хочу", "не стоит", "не потрібн",
                                          "не треба")
MORE_NEGATIONS_AFTER: tuple[str, ...] = ("필요 없", "필요없", "말고", "빼고", "없이", "는 필요 없", "은 필요 없")
