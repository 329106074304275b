"""What chart kinds look like, and kinds the product has no name for, in nine languages, as data.

A *look* is a chart kind described by what the reader sees: a part that is drawn (bars, bands, circles,
tiles, cells) and what is done to it (cut into segments, flowing, sized by a value, shaded). Each rule is a
list of groups; it holds when every group is found in the folded request (``directives.fold``). Latin entries
are regular expressions anchored at a word start (so a stem covers its inflections: ``segment`` for
"segments", "segmentos", "Segmente"); CJK entries are substrings. A rule marked ``charted`` only speaks when
the request already asks for a chart ("the chart that starts at the total …"): its words alone are too common.

The lists are each language's usual words for these shapes, written without reading any labelled split.
"""

from __future__ import annotations

__all__ = ["BARS", "LOOKS", "NOT_KINDS", "NOT_KIND_STEMS", "OTHER_KINDS", "OTHER_KIND_NOUNS"]

BARS = (r"bars?\b", r"columns?\b", r"barras?\b", r"barres?\b", r"balken", r"saulen?\b", r"staaf", r"staven",
         r"colonnes?\b", r"colunas?\b", r"columnas?\b", "柱", "条形", "棒")
_SPLIT = (r"split (?:into|by|in)\b", r"broken down by\b", r"stack\w*", r"apil\w*", r"empil\w*", r"gestapel\w*",
          r"impil\w*", r"stapel\w*", r"in pila\b", r"divided (?:into|by)\b", r"cut (?:into|up)\b", r"broken (?:into|down)\b",
          r"segment", r"pieces\b", r"layers?\b", r"colou?red by\b", r"divid\w* (?:en|por)\b", r"partid\w* en\b",
          r"trozos\b", r"coloread\w* por\b", r"divise\w* (?:en|par)\b", r"decoupe\w*", r"morceaux\b",
          r"colore\w* (?:par|selon)\b", r"unterteil\w*", r"aufgeteilt", r"eingefarbt nach\b", r"suddivis\w*",
          r"divis[ei] (?:in|per)\b", r"pezzi\b", r"colorat\w* per\b", r"dividid\w* em\b", r"colorid\w* por\b",
          r"opgedeeld", r"verdeeld in\b", r"stukken\b", r"gekleurd (?:per|naar)\b", "分段", "分成", "分割", "分け",
          "積み")
_BANDS = (r"bands?\b", r"ribbons?\b", r"streams?\b", r"bandas?\b", r"cintas?\b", r"bandes?\b", r"rubans?\b",
          r"bander\b", r"bandern\b", r"bande\b", r"nastri\b", r"faixas?\b", r"fitas?\b", r"banden\b", r"linten\b", "带", "帯")
_FLOWS = (r"flow\w*", r"fluy\w*", r"fluir\b", r"fluem\b", r"fluisc\w*", r"coul\w*", r"flie\w*", r"stromen\b", r"scorr\w*", r"flui\w*",
          r"stroom\w*", r"vloei\w*", "流向", "流动", "流入", "流れ")
_FLOW_NOUNS = (r"flows?\b", r"flujos?\b", r"flux\b", r"strome\b", r"flusse\b", r"flussi\b", r"fluxos?\b",
               r"stromen\b", "流量", "流")
_WIDTH = (r"width\b", r"thick\w*", r"wider\b", r"ancho\w*", r"grosor\b", r"largeur\b", r"epaisseur\b", r"breite\b",
          r"dick\w*", r"larghezza\b", r"spessore\b", r"largura\b", r"espessura\b", r"breedte\b", r"dikte\b",
          "宽", "粗细", "幅", "太さ")
_TOTAL = (r"total\w*", r"totaal\b", r"gesamt\w*", r"summe\b", r"totale\b", "总", "合計", "累计", "累積")
_STEPS = (r"steps?\b", r"stepping\b", r"rises?\b", r"falls?\b", r"up (?:or|and) down\b", r"increases?\b",
          r"decreases?\b", r"gains? and loss", r"subidas?\b", r"bajadas?\b", r"aumentos?\b", r"disminuc\w*",
          r"pasos?\b", r"hausses?\b", r"baisses?\b", r"etapes?\b", r"schritt\w*", r"anstieg\w*", r"ruckgang\w*",
          r"zunahme\b", r"abnahme\b", r"passi\b", r"salite?\b", r"discese?\b", r"cali\b", r"calo\b", r"aumenti\b",
          r"diminuzion\w*", r"descidas?\b", r"mont(?:e|ent)\b", r"descend\w*", r"suben\b", r"bajan\b",
          r"steigen\b", r"fallen\b", r"salgono\b", r"scendono\b", r"sobem\b", r"descem\b", r"stijgen\b",
          r"dalen\b", r"quedas?\b", r"stap\w*", r"stijging\w*", r"daling\w*", r"builds? up\b", r"building up\b",
          "增减", "增加",
          "减少", "増減", "増加", "減少", "ステップ")
_STARTED = (r"start\w*", r"began\b", r"begin\w*", r"first release", r"from first to last\b", r"first and last\b", r"inici\w*", r"comienz\w*", r"empez\w*",
            r"debut\w*", r"commenc\w*", r"beginn\w*", r"anfang\b", r"inizi\w*", r"comincia\w*", r"comec\w*",
            r"aanvang\b", "开始", "起始", "開始", "始ま")
_ENDED = (r"end(?:ed|s|ing)?\b", r"stop\w*", r"finish\w*", r"last release", r"(?:to|until|till) (?:its|their|the) last\b",
          r"fin\b", r"final\b", r"termin\w*",
          r"acab\w*", r"arret\w*", r"ende\w*", r"aufgehort", r"fine\b", r"finit\w*", r"fim\b", r"eind\w*",
          "结束", "截止", "終了", "終わ")
_EACH = (r"each\b", r"every\b", r"per\b", r"cada\b", r"chaque\b", r"jede\w*", r"ogni\b", r"elk\w*", r"ieder\w*",
         "每", "ごと", "それぞれ")
_TIME_AXIS = (r"time ?axis\b", r"timeline\b", r"calendar\b", r"eje (?:temporal|del tiempo)\b", r"linea de tiempo\b",
              r"axe (?:du temps|temporel)\b", r"frise\b", r"zeitachse\b", r"zeitleiste\b", r"zeitstrahl\b",
              r"asse (?:temporale|del tempo)\b", r"eixo (?:do tempo|temporal)\b", r"linha do tempo\b", r"tijdas\b",
              r"tijdlijn\b", "时间轴", "时间线", "時間軸")
_HORIZONTAL = (r"horizonta\w*", r"waagerecht\w*", r"orizzontal\w*", "水平", "横")
# spans drawn instead of bars: "the stretch from its arXiv date to its conference date, drawn as horizontal spans
# across a calendar"
_SPANS = (r"spans?\b", r"stretch(?:es)?\b", r"intervals?\b", r"intervalos?\b", r"intervalles?\b", r"intervalli\b",
          r"zeitspannen?\b", r"tijdspannes?\b", "区间", "期間の帯")
_DURATION = (r"durations?\b", r"how long each\b", r"duracion\b", r"duree\b", r"dauer\b", r"durata\b", r"duracao\b",
             r"duur\b", "持续时间", "期間")
_CIRCLES = (r"bubbles?\b", r"circles?\b", r"discs?\b", r"dots?\b", r"balls?\b", r"blobs?\b", r"burbuja\w*",
            r"circulos?\b", r"bulles?\b", r"cercles?\b", r"blasen\b", r"kreise\b", r"kreisen\b", r"punkte\b",
            r"bolle\b", r"bolla\b", r"cerchi\b", r"bolhas?\b", r"bellen\b", r"cirkels?\b", r"stippen\b", "气泡",
            "圆圈", "圆点", "泡", "バブル", "円")
_SIZED = (r"sized?\b", r"sizes\b", r"bigger\b", r"larger\b", r"proportion\w*", r"proporci\w*", r"proporz\w*", r"tamano\w*", r"taille\b",
          r"gross\w*", r"groß\w*", r"grand\w*", r"dimension\w*", r"tamanho\w*", r"groot\w*", "大小", "大きさ", "尺寸")
_TILES = (r"tiles?\b", r"rectangles?\b", r"blocks?\b", r"squares?\b", r"boxes\b", r"baldosas?\b", r"rectangulos?\b",
          r"bloques?\b", r"cuadrados?\b", r"tuiles?\b", r"paves?\b", r"carres?\b", r"kacheln?\b", r"rechtecke?n?\b",
          r"quadrate?n?\b", r"tessere\b", r"riquadri\b", r"rettangoli\b", r"blocchi\b", r"ladrilhos?\b",
          r"retangulos?\b", r"blocos?\b", r"quadrados?\b", r"tegels?\b", r"rechthoeken\b", r"blokken\b",
          r"vakken\b", "方块", "矩形", "タイル", "四角", "長方形")
_CELLS = (r"grid\b", r"cells?\b", r"matrix\b", r"cuadricula\b", r"celdas?\b", r"rejilla\b", r"matriz\b",
          r"grille\b", r"cellules?\b", r"cases\b", r"matrice\b", r"raster\b", r"zellen?\b", r"gitter\b",
          r"griglia\b", r"celle\b", r"cella\b", r"grade\b", r"celulas?\b", r"cellen\b", r"rooster\b", "格子", "网格",
          "方格", "单元格", "マス", "セル")
_SHADE = (r"darker\b", r"lighter\b", r"shade\w*", r"colou?r\w* by\b", r"colou?r ?coded\b", r"intensity\b", r"hotter\b", r"oscur\w*",
          r"intensidad\b", r"color\w* (?:segun|por)\b", r"fonce\w*", r"intensite\b", r"teinte\w*",
          r"colore\w* (?:selon|par)\b", r"dunkler\w*", r"intensitat\b", r"eingefarbt\b", r"farbe\w* nach\b",
          r"scur\w*", r"intensita\b", r"colorat\w*", r"escur\w*", r"intensidade\b", r"colorid\w*", r"donker\w*",
          r"intensiteit\b", r"kleur\w* (?:per|naar)\b", "颜色", "深浅", "越深", "濃い", "濃淡", "色の濃さ")
# "narrow bars" are thin bars, not a funnel narrowing stage by stage
_NARROW = (r"narrow\w*\b(?! (?:bars?|columns?|lines?)\b)", r"stage by stage\b", r"each stage\b", r"estrech\w*", r"etapa (?:por|a) etapa\b",
           r"retreci\w*", r"etape par etape\b", r"verjung\w*", r"verengt\w*", r"stufe fur stufe\b", r"restring\w*",
           r"fase per fase\b", r"estreit\w*", r"vernauw\w*", r"fase voor fase\b", "逐层", "逐级", "段階ごと", "絞り込",
           "狭くな", "越来越窄", "逐渐变窄")
_BINS = (r"bins?\b", r"binned\b", r"buckets?\b", r"bucketed\b", r"intervals?\b", r"intervalos?\b", r"rangos\b",
         r"tramos\b", r"intervalles?\b", r"tranches\b", r"klassen\b", r"intervalle\b", r"intervalli\b", r"fasce\b",
         r"classi\b", r"faixas\b", r"intervallen\b", r"bakjes\b", "区间", "分箱", "区間", "階級", "ビン")
_SPOKES = (r"spokes?\b", r"radiating\b", r"star ?shaped\b", r"one axis per\b", r"radios\b", r"en estrella\b",
           r"rayons\b", r"en etoile\b", r"speichen\b", r"sternform\w*", r"raggi\b", r"a stella\b", r"raios\b",
           r"em estrela\b", r"spaken\b", r"stervorm\w*", "辐射", "星形", "放射状")
_SORTED = (r"longest\b", r"(?:highest|most|biggest|largest) to (?:lowest|least|fewest|smallest)\b", r"(?:dalla|dal) piu (?:lung|grand|alt)\w*", r"du plus (?:long|grand|haut)\w*",
           r"de la mas (?:larga|grande|alta)\b", r"vom (?:langst|grosst|hochst)\w*", r"da mais (?:longa|comprida|alta)\b",
           r"van (?:lang|groot|hoog) naar (?:kort|klein|laag)\b", "長い順", "从长到短", r"from (?:most|highest|biggest|largest) to\b", r"descending\b", r"in order of size\b",
           r"(?:biggest|largest|longest) first\b", r"sorted (?:by (?:size|count|number|length)|from)\b",
           r"de mayor a menor\b", r"descendente\b", r"du plus grand au plus petit\b", r"decroissant\w*",
           r"absteigend\w*", r"der grosse nach\b", r"decrescente\b", r"dal piu grande\b", r"do maior para o menor\b",
           r"aflopend\b", r"van groot naar klein\b", "从高到低", "从大到小", "降序", "多い順", "大きい順", "降順")
_CIRCLE_CUT = (r"circle (?:cut|divided|split) into\b", r"circulo dividido\b", r"cercle (?:divise|decoupe)\b",
               r"kreis (?:aufgeteilt|unterteilt|geteilt)\b", r"cerchio diviso\b", r"cirkel verdeeld\b", r"wedges?\b",
               "扇形")
_POINT_CLOUD = (r"cloud of (?:dots|points)\b", r"point cloud\b", r"nube de puntos\b", r"nuvola di punti\b",
                r"nuvem de pontos\b", r"puntenwolk\b", r"one (?:dot|point) (?:per|for each)\b", r"plotted against\b",
                # ... two measures plotted "against each other"; things that "stack up against each other" or are
                # "put against each other" are compared, which bars do
                r"(?:plot|plots|plotted|plotting|graph|graphed|chart|charted|draw|drawn) (?:[\w']+ ){0,6}"
                r"against each other\b", "点云")
_LEFT = (r"left\b", r"izquierda\b", r"gauche\b", r"links\b", r"sinistra\b", r"esquerda\b", "左")
_RIGHT = (r"right\b", r"derecha\b", r"droite\b", r"rechts\b", r"destra\b", r"direita\b", "右")
_MIRRORED = (r"mirror\w*", r"butterfly\b", r"diverging\b",
             r"(?:from|around|either side of|on both sides of) (?:a|the) (?:middle|centre|center|central|zero) (?:line|axis)\b",
             r"(?:de|desde) una linea central\b", r"(?:d'|de )une ligne centrale\b", r"von einer mittellinie\b",
             r"da una linea centrale\b", r"de uma linha central\b", r"vanaf een middenlijn\b", r"espejo\b", r"miroir\b", r"gespiegelt\w*",
             r"specchi\w*", r"espelhad\w*", r"gespiegeld\w*", "镜像", "対称")
_MAPS = (r"maps?\b", r"mapas?\b", r"cartes?\b", r"karten?\b", r"mappa\b", r"mappe\b", r"kaart\w*", "地图", "地図")
_COLOURED = (r"colou?r\w*", r"shade\w*", r"colore\w*", r"color\w*", r"eingefarbt\w*", r"farb\w*", r"gekleurd\b",
             r"kleur\w*", "着色", "色分け", "颜色")
_WORDS = (r"words?\b", r"terms\b", r"palabras\b", r"mots\b", r"worter\b", r"woerter\b", r"begriffe\b",
          r"parole\b", r"palavras\b", r"woorden\b", "词", "単語", "文字")
_QUARTILES = (r"quartiles?\b", r"median\w*", r"percentiles?\b", r"interquartile\b", r"cuartil\w*", r"mediana\b",
              r"quartil\w*", r"kwartiel\w*", r"mediaan\b", r"quantil\w*", "四分位", "中位数", "中央値")
_PIES = (r"pies?\b", r"circles?\b", r"tartas?\b", r"pastel\b", r"camembert\b", r"tortas?\b", r"kuchen\w*",
         r"torten?\b", r"pizzas?\b", r"taart\w*", "饼", "円")
_LAYERS = (r"layers?\b", r"levels?\b", r"nested\b", r"multi ?level\b", r"capas\b", r"niveles\b", r"anidad\w*",
           r"couches\b", r"niveaux\b", r"imbrique\w*", r"ebenen\b", r"schichten\b", r"verschachtelt\w*",
           r"livelli\b", r"strati\b", r"annidat\w*", r"camadas\b", r"niveis\b", r"aninhad\w*", r"lagen\b",
           r"niveaus\b", r"genest\w*", "多层", "嵌套", "階層", "入れ子")
_STAGES = (r"inverted pyramid\b", r"upside ?down (?:pyramid|triangle)\b", r"piramide invertida\b",
           r"pyramide inversee\b", r"umgekehrte pyramide\b", r"piramide rovesciata\b", r"omgekeerde piramide\b",
           "倒金字塔", "逆ピラミッド")
_OVERLAP = (r"overlap\w*", r"superpon\w*", r"chevauch\w*", r"uberschneid\w*", r"uberlapp\w*", r"sovrappo\w*",
            r"sobrepo\w*", r"intersect\w*", r"solap\w*", "重叠", "重な", "交叉")
# a bar that starts where the one before it ends: the floating steps of a waterfall
_FLOATING = (r"where the (?:previous|last|one before)(?: one| bar)? (?:ends|ended|stops|stopped|finishes|finished|left off)\b", r"donde termina la anterior\b",
             r"la ou (?:finit|termine|s'arrete) la precedente\b", r"wo (?:der|die) vorige\w* (?:endet|aufhort)\b",
             r"dove finisce la precedente\b", r"onde termina a anterior\b", r"waar de vorige (?:eindigt|stopt)\b",
             "从上一根结束处", "前の棒の終わり")
# bands or bars that get smaller one after another, widest first: a funnel ("a stack of shrinking bands, widest at
# the top"); "narrow" alone is too common ("narrow bars"), so the shrinking is asked for
_SHRINK = (r"shrink\w*", r"widest (?:at the top|first)\b", r"wide at the top\b", r"narrowest at the bottom\b",
           r"(?:each|every) (?:one )?(?:smaller|narrower) than the (?:last|previous|one above)\b",
           r"cada vez mas (?:estrech|pequen|angost)\w*", r"de plus en plus (?:etroit|petit)\w*",
           r"immer (?:schmaler|kleiner)\w*", r"sempre piu (?:strett|piccol)\w*", r"cada vez mais (?:estreit|pequen)\w*",
           r"steeds (?:smaller|kleiner)\w*", "越来越小", "越来越窄", "逐渐变窄", "だんだん狭く", "だんだん小さく")
_AREA = (r"area\b", r"aire\b", r"flache\b", r"oppervlak\w*", "面积", "面積")
_FILLED = (r"shaded\b", r"filled\b", r"coloured in\b", r"colored in\b", r"sombread\w*", r"rellen\w*", r"rempli\w*",
           r"gefullt\b", r"ausgefullt\b", r"schattiert\b", r"riempit\w*", r"ombreggiat\w*", r"preenchid\w*",
           r"gevuld\b", r"gearceerd\b", "填充", "塗")
_CONCENTRIC = (r"concentri\w*", r"konzentrisch\w*", r"concentrisch\w*", "同心")
_WEB = (r"spider'?s? web\b", r"cobweb\b", r"toile d'?araignee\b", r"tela de arana\b", r"spinnweb\w*", "蜘蛛网", "クモの巣")
_WEB_LIKE = (r"web ?(?:like|shaped)\b", r"en forma de tela\b", r"en forme de toile\b", r"netzformig\w*")
# A pizza is the house's everyday picture of a pie: said of a chart ("🍕 chart by venue"), or as the look of one
# ("the one that looks like a pizza") — never a bare pizza, which is food.
_PIZZA = (r"pizza\w*", "🍕", "披萨", "比萨", "ピザ")
_PIZZA_LIKE = (r"(?:looks?|looking|shaped) like a pizza\b", r"pizza ?(?:shaped|like|style)\b", r"parece una pizza\b",
               r"como una pizza\b", r"comme une pizza\b", r"wie eine pizza\b", r"come una pizza\b",
               r"parece uma pizza\b", r"como uma pizza\b", r"als een pizza\b",
               "像披萨", "像比萨", "ピザみたい", "ピザのよう")
_SHARE_CIRCLE = (r"(?:shares?|percentages?|proportions?|parts?) (?:in|of|as) a circle\b",
                 r"a circle (?:of|with|split by) (?:shares|percentages|parts)\b", r"porcentajes en un circulo\b",
                 r"pourcentages dans un cercle\b", r"prozente in einem kreis\b", r"percentuali in un cerchio\b",
                 r"porcentagens em um circulo\b", r"percentages in een cirkel\b")
_JOINED_DOTS = (r"(?:dots?|points?) (?:connected|joined|linked) (?:by|with) (?:a )?lines?\b",
                r"puntos (?:unidos|conectados) (?:por|con) (?:una )?linea", r"points (?:relies|joints) par (?:une )?ligne",
                r"punkte (?:verbunden|mit linien verbunden)", r"punti (?:collegati|uniti) da (?:una )?linea",
                r"pontos (?:ligados|conectados) por (?:uma )?linha", r"punten verbonden (?:door|met) (?:een )?lijn")
_LINE_EACH = (r"(?:a|one) line (?:for|per) (?:each|every)\b", r"una linea (?:por|para|per) cada\b",
              r"une (?:ligne|courbe) (?:par|pour) (?:chaque|venue|produit)\b", r"eine linie (?:pro|je|fur)\b",
              r"una linea per ogni\b", r"uma linha (?:por|para) cada\b", r"een lijn (?:per|voor elke?)\b")
_OVER_TIME = (r"over (?:time|the years|the months|the weeks)\b", r"per (?:month|year|week)\b", r"by (?:month|year)\b",
              r"a lo largo\b", r"au fil\b", r"im laufe\b", r"im zeitverlauf\b", r"nel corso\b", r"ao longo\b",
              r"in de loop\b", r"por (?:mes|ano|año)\b", r"par (?:mois|an)\b", r"pro (?:monat|jahr)\b", r"per (?:maand|jaar)\b")
_BOX_NOUNS = (r"box(?:es)?\b", r"cajas?\b", r"boites?\b", r"kasten\b", r"scatol\w*", r"caixas?\b", r"dozen\b",
              r"doos\b", "箱")
_SPREAD = (r"spread\b", r"range\b", r"variation\b", r"dispersion\b", r"whiskers?\b", r"antenn\w*", r"bigot\w*",
           r"moustach\w*", r"baffi\b", r"bigode\w*", r"snor\w*", r"spreiding\b", r"streuung\b", "须", "ひげ")
_TRIANGLE = (r"triangle\w*", r"triangul\w*", r"dreieck\w*", r"triangol\w*", r"driehoek\w*", "三角")
_RING = (r"rings?\b", r"anillo\b", r"anneau\b", r"anello\b", r"anel\b", "环形", "リング")

# A line that moves both ways is the everyday picture of a line chart ("a line going up or down", "una línea que
# suba y baje"): the line word, at most four words, then both directions (one direction is too often a topic).
_MOVING_LINE = (
    r"(?:line|curve)s?,? (?:[\w']+ ){0,4}?(?:(?:going|goes|go|moving|moves) up (?:or|and) down|up (?:or|and) down|"
    r"rises? and falls?|rising and falling|with (?:its|the) ups and downs)\b",
    r"(?:linea|curva)s?,? (?:[\w']+ ){0,4}?(?:sub\w* (?:y|o) baj\w*|baj\w* (?:y|o) sub\w*)\b",
    r"(?:ligne|courbe)s?,? (?:[\w']+ ){0,4}?(?:mont\w* (?:et|ou) (?:descend|baiss)\w*|(?:descend|baiss)\w* (?:et|ou) mont\w*)",
    r"(?:linie|kurve)n?,? (?:[\w']+ ){0,4}?(?:steigt (?:und|oder) fallt|auf und ab|rauf und runter)\b",
    r"(?:linea|linee|curva|curve),? (?:[\w']+ ){0,4}?(?:sal\w* (?:e|o) scend\w*|scend\w* (?:e|o) sal\w*)\b",
    r"(?:linha|curva)s?,? (?:[\w']+ ){0,4}?(?:sob\w* (?:e|ou) desc\w*|desc\w* (?:e|ou) sob\w*)\b",
    r"(?:lijn|curve)n?,? (?:[\w']+ ){0,4}?(?:stijg\w* (?:en|of) da+l\w*|op en neer)\b",
    "上下起伏的线", "起伏的曲线", "涨跌的线", "上下波动的线", "上下する線", "上がったり下がったりする線")
# A cake cut into parts is a pie ("une sorte de gâteau découpé en parts"); a bare cake is food, so the cut is asked.
_CAKES = (r"cakes?\b", r"gateaux?\b", r"tartas?\b", r"pastel\b", r"tortas?\b", r"kuchen\b", r"torten?\b",
          r"bolos?\b", r"taart\w*", "蛋糕", "ケーキ")
_CUT_IN_PARTS = (r"(?:cut|sliced|divided|split) (?:up )?(?:in|into) (?:parts|slices|pieces|portions|wedges)\b",
                 r"slices\b", r"(?:en )?parts\b", r"decoupe\w*", r"tranches\b", r"portions?\b", r"porcion\w*",
                 r"rebanad\w*", r"trozos\b", r"cortad\w*", r"partid\w*", r"stucke\w*", r"geschnitten\b",
                 r"aufgeteilt\b", r"fette\b", r"spicchi\b", r"tagliat\w*", r"fatias\b", r"pedacos\b", r"punten\b",
                 r"stukken\b", r"gesneden\b", "切成", "切开", "切り分け", "等分")
# One circle cut into slices is a pie ("the shares as slices of one circle"), though "proportion" there would
# also size a bubble: the circle is cut, not sized.
_ONE_CIRCLE = (r"circles?\b", r"circulos?\b", r"cercles?\b", r"kreis\w*", r"cerchi[oa]?\b", r"cirkels?\b", "圆", "円")
# A round chart is a pie where the language names it so ("biểu đồ tròn", "koláčový graf", a "circle chart").
_ROUND_CHART = (r"(?:round|circle|circular) (?:chart|graph|diagram)s?\b", r"biểu đồ tron\b", r"kolacov\w*",
                r"kruhov\w* (?:graf|diagram)\w*", r"tartdiagram\w*", r"cirkeldiagram\w*")
# A map of the world coloured by country is a choropleth, said in the nine languages' own compounds.
_WORLD_MAPS = (r"world ?maps?\b", r"maps? of the world\b", r"mapamundi\b", r"mapa ?mundi\b", r"mapa (?:del|do) mundo\b",
               r"planispheres?\b", r"cartes? du monde\b", r"weltkarte\w*", r"mappamondo\b", r"wereldkaart\w*",
               r"landkaart\w*", "世界地图", "世界地図")
_BY_COUNTRY = (r"(?:per|by|for each|each) country\b", r"ingekleurd\b", r"gefarbt\b", r"colou?r\w*",
               r"(?:por|para cada|cada) pais\b", r"par pays\b", r"(?:pro|nach|je) land\b", r"per (?:land|paese)\b",
               r"(?:per|da) nazione\b", "按国家", "国别", "国別", "国ごと", "塗り分け", "上色")

# (kind, charted, groups), first match wins: the specific shapes before the ones they contain
# (whiskers and overlaps before sized circles, a start-to-end bar before a plain bar).
LOOKS: tuple[tuple[str, bool, tuple[tuple[str, ...], ...]], ...] = (
    ("funnel", False, (_SHRINK, _BANDS + BARS + _LAYERS)),
    ("stacked-bar", False, (BARS, _SPLIT)),
    ("tornado", True, (_LEFT, _RIGHT)),
    ("tornado", False, (BARS, _MIRRORED)),
    ("choropleth", False, (_MAPS, _COLOURED)),
    ("choropleth", False, (_WORLD_MAPS, _BY_COUNTRY)),
    ("line", False, (_MOVING_LINE,)),
    ("pie", False, (_ROUND_CHART,)),
    ("word-cloud", False, (_WORDS, _SIZED)),
    ("box", True, (_QUARTILES,)),
    ("box", True, (_BOX_NOUNS, _SPREAD)),
    ("area", False, (_AREA, _FILLED)),
    ("sunburst", False, (_CONCENTRIC, _CIRCLES)),
    ("sunburst", False, (_RING, _LAYERS)),
    ("radar", False, (_WEB,)),
    ("radar", True, (_WEB_LIKE,)),
    ("pie", False, (_SHARE_CIRCLE,)),
    ("pie", False, (_PIZZA_LIKE,)),
    ("pie", True, (_PIZZA,)),
    ("line", False, (_JOINED_DOTS,)),
    ("line", False, (_LINE_EACH, _OVER_TIME)),
    ("funnel", True, (_TRIANGLE,)),
    ("sunburst", False, (_PIES, _LAYERS)),
    ("funnel", False, (_STAGES,)),
    ("sankey", False, (_BANDS, _FLOWS)),
    ("sankey", False, (_FLOW_NOUNS, _WIDTH)),
    ("sankey", False, (_BANDS, _WIDTH)),
    ("waterfall", True, (_TOTAL, _STEPS)),
    ("waterfall", True, (_FLOATING,)),  # before the Gantt bar's start and end: it starts where another ended
    ("gantt", True, (BARS, _STARTED, _ENDED, _EACH)),
    ("gantt", True, (BARS, _TIME_AXIS, _HORIZONTAL)),
    ("gantt", True, (_SPANS, _TIME_AXIS, _HORIZONTAL)),
    ("gantt", True, (BARS, _DURATION)),
    ("pie", False, (_ONE_CIRCLE, _CUT_IN_PARTS)),  # before the sized circles of a bubble chart
    ("venn", False, (_CIRCLES, _OVERLAP)),
    ("bubble", False, (_CIRCLES, _SIZED)),
    ("treemap", False, (_TILES, _SIZED)),
    ("heatmap", False, (_CELLS, _SHADE)),
    ("funnel", True, (_NARROW,)),
    ("histogram", True, (_BINS,)),
    ("radar", True, (_SPOKES,)),
    ("ranked-bar", True, (BARS, _SORTED)),
    ("pie", False, (_CIRCLE_CUT,)),
    ("pie", False, (_CAKES, _CUT_IN_PARTS)),
    ("scatter", True, (_POINT_CLOUD,)),
    ("donut", True, (_RING,)),
)

# Named kinds outside ``ChartSubtype`` (read as ``chart:other``, the user's words kept). English and glued
# names; the Romance "<chart word> de <noun>" ones are OTHER_KIND_NOUNS.
OTHER_KINDS: tuple[str, ...] = (
    "org chart", "organization chart", "organisation chart", "organigram", "organigrama", "organigramme",
    "organigramma", "organograma", "organogram", "organigramm", "flowchart", "flow chart", "flow diagram",
    "stem and leaf", "stem and leaf plot", "stem and leaf display", "lollipop plot", "spaghetti plot", "hive plot",
    "fishbone diagram", "ishikawa diagram", "tree diagram", "arc diagram", "contour plot", "density plot",
    "kde plot", "qq plot", "q q plot", "forest plot", "manhattan plot", "volcano plot", "ternary plot", "mekko",
    "cartogram", "control chart", "run chart", "step chart", "span chart", "range plot", "error bars",
    "circle packing", "calendar plot", "pictograph", "isotype", "nightingale rose", "polar chart", "radial chart",
    "bullet graph", "candlestick chart", "sparklines", "pictogram", "pictograms", "frequency polygon",
    "小提琴图", "k线图", "蜡烛图", "和弦图", "平行坐标", "茎叶图", "组织结构图", "组织架构图", "流程图", "子弹图", "斜率图",
    "坡度图", "马赛克图", "帕累托图", "山脊图", "棒棒糖图", "玫瑰图", "南丁格尔", "树状图",
    "ローソク足", "幹葉図", "組織図", "フローチャート", "パレート図", "平行座標", "樹形図", "バイオリン図", "弦グラフ",
    "マリメッコチャート", "ブレットチャート", "スロープチャート",
    # the English names above said in katakana with no chart word after them (a name glued to one is read by
    # ``kinds.katakana_kinds``)
    "スパークライン", "デンドログラム", "ローソク足チャート", "キャンドルスティック", "マリメッコ", "リッジライン",
    "ビースウォーム", "ヘックスビン", "アイシクル", "ロリポップ", "ピクトグラム", "カルトグラム", "バイオリンプロット",
)

# "<chart word> de/en/a <noun>": nouns that name a kind outside ``ChartSubtype`` (violin, candles, chords,
# parallel coordinates, stem and leaf, flow, slope, mosaic, lollipop, bullet, dumbbell).
OTHER_KIND_NOUNS: tuple[str, ...] = tuple(
    """violin violon violino viool velas vela chandeliers chandelles candele candelieri kaarsen cuerdas cordes
    corde cordas koorden coordenadas coordonnees coordinate coordinaten tallo tige ramo caule stengel flujo
    pendiente pente pendenza inclinacao helling mosaico mosaique mosaik lollipop piruleta sucette lecca pirulito
    bala balas balle proiettile pareto dendrograma dendrogramme dendrogramma ishikawa espina arete
    mancuerna mancuernas haltere halteres halteri manubri manubrio dumbbell dumbbells halter""".split())

# Words in front of a chart word that say what the chart shows or how it looks, never which kind it is: "a
# quick chart", "the venue chart", "a comparison chart". A word before "chart" / "plot" / "diagram" that is none
# of these, nor an article, verb or pronoun, names a kind the product has no word for.
NOT_KINDS: frozenset[str] = frozenset(
    """quick simple nice small big clear proper good basic interactive visual colourful colorful pretty fancy
    detailed summary overview comparison comparative monthly weekly yearly annual daily quarterly time trend
    trends distribution frequency count counts number numbers share progress status performance popularity
    results result data usual same new another other single separate different final cool neat short long little
    whole full complete static dynamic live updated current latest horizontal vertical 2d 3d overall total
    combined grouped sorted ranked stacked animated labelled labeled small multiple multiples following above
    below first last next previous whole entire one two three few quick rough sample example nicer clean
    tiny large huge readable compact pie bar line area lines bars chart charts graph plot diagram visual
    papers paper release releases doc docs document documents venue venues section sections year years month
    months week weeks day days quarter quarters product products vendor vendors author authors rank ranks
    ranking rankings version versions package packages date dates topic topics item items record records
    collection collections source sources citation citations activity usage download downloads star stars
    growth change changes impact effect effects score scores rating ratings metric metrics kpi kpis sales
    revenue budget cost costs team teams project projects task tasks benchmark benchmarks model models
    framework frameworks library libraries agent agents llm llms rag search query queries publication
    publications conference conferences journal journals lab labs company companies field fields category
    categories type types value values tag tags keyword keywords term terms theme themes
    it this that these those them me us you your my our their his her its which what whatever such
    please pls then also just now maybe kindly quickly simply again still even really actually so
    looking shaped style styled type kind sort like ish cumulative running clustered side""".split()
)
# German and Dutch qualifiers glued to a chart word that say what is shown ("Jahresdiagramm"), not a kind.
NOT_KIND_STEMS: tuple[str, ...] = (
    "jahr", "monat", "woche", "quartal", "tag", "zeit", "ubersicht", "uebersicht", "vergleich", "verlauf", "trend",
    "entwicklung", "verteilung", "anteil", "haufigkeit", "release", "paper", "venue", "produkt", "autor",
    "popularit", "rang", "ergebnis", "daten", "zahl", "umsatz", "verkauf", "kosten", "jaar", "maand", "week",
    "kwartaal", "overzicht", "vergelijking", "verloop", "ontwikkeling", "verdeling", "aandeel", "resultat",
    "resultaat", "sub", "groei", "wachstum",
)
