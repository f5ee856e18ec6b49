// search/code/1.js
readerSearch.put("code/1",{"t":{"1":"1:6"},"d":{}});
// search/code/__i.js
readerSearch.put("code/__i",{"t":{"__init__":"0:19"},"d":{}});
// search/code/a.js
readerSearch.put("code/a",{"t":{"a":"0:1,6,2,11"},"d":{}});
// search/code/acc.js
readerSearch.put("code/acc",{"t":{"access":"0:24"},"d":{}});
// search/code/an.js
readerSearch.put("code/an",{"t":{"an":"0:7"},"d":{}});
// search/code/arr.js
readerSearch.put("code/arr",{"t":{"array":"0:7"},"d":{}});
// search/code/as.js
readerSearch.put("code/as",{"t":{"as":"1:1"},"d":{}});
// search/code/blo.js
readerSearch.put("code/blo",{"t":{"block":"0:7","block_shape":"0:11","blockmapping":"0:14,3;1:6","blockspec":"0:6;1:2,3"},"d":{"blockspec":[[0,6,"class","BlockSpec","BlockSpec: A block of an array."]],"blockmapping":[[0,17,"class","BlockMapping","BlockMapping"]]}});
// search/code/cla.js
readerSearch.put("code/cla",{"t":{"class":"0:6,11"},"d":{}});
// search/code/col.js
readerSearch.put("code/col",{"t":{"colour":"0:9"},"d":{}});
// search/code/com.js
readerSearch.put("code/com",{"t":{"comment":"0:20"},"d":{}});
// search/code/cor.js
readerSearch.put("code/cor",{"t":{"core":"1:1,1"},"d":{}});
// search/code/dat.js
readerSearch.put("code/dat",{"t":{"dataclass":"0:5","dataclasses":"0:2,3"},"d":{}});
// search/code/def.js
readerSearch.put("code/def",{"t":{"def":"0:13,6;1:5"},"d":{}});
// search/code/doc.js
readerSearch.put("code/doc",{"t":{"docstring":"0:9"},"d":{}});
// search/code/eac.js
readerSearch.put("code/eac",{"t":{"each":"0:9"},"d":{}});
// search/code/fix.js
readerSearch.put("code/fix",{"t":{"fixture":"1:1,1"},"d":{}});
// search/code/for.js
readerSearch.put("code/for",{"t":{"for":"0:1"},"d":{}});
// search/code/fro.js
readerSearch.put("code/fro",{"t":{"from":"1:1,1","frozen":"0:5"},"d":{}});
// search/code/gol.js
readerSearch.put("code/gol",{"t":{"golden":"0:1"},"d":{}});
// search/code/gra.js
readerSearch.put("code/gra",{"t":{"granted":"0:24"},"d":{}});
// search/code/gri.js
readerSearch.put("code/gri",{"t":{"grid":"0:13,1,5,2"},"d":{}});
// search/code/imp.js
readerSearch.put("code/imp",{"t":{"import":"0:2;1:1,1"},"d":{}});
// search/code/int.js
readerSearch.put("code/int",{"t":{"int":"0:11"},"d":{}});
// search/code/its.js
readerSearch.put("code/its",{"t":{"its":"0:9"},"d":{}});
// search/code/kee.js
readerSearch.put("code/kee",{"t":{"keeps":"0:9"},"d":{}});
// search/code/ker.js
readerSearch.put("code/ker",{"t":{"kernel":"1:5"},"d":{}});
// search/code/lin.js
readerSearch.put("code/lin",{"t":{"lines":"0:9"},"d":{}});
// search/code/mod.js
readerSearch.put("code/mod",{"t":{"module":"0:1"},"d":{}});
// search/code/of.js
readerSearch.put("code/of",{"t":{"of":"0:7,2"},"d":{}});
// search/code/on.js
readerSearch.put("code/on",{"t":{"on":"0:9"},"d":{}});
// search/code/ove.js
readerSearch.put("code/ove",{"t":{"over":"0:9"},"d":{}});
// search/code/pag.js
readerSearch.put("code/pag",{"t":{"page":"0:1"},"d":{}});
// search/code/pal.js
readerSearch.put("code/pal",{"t":{"pallas_call":"1:5","pallas_core":"1:1,5"},"d":{"pallas_call":[[1,5,"function","pallas_call","pallas_call(kernel, spec)"]]}});
// search/code/ret.js
readerSearch.put("code/ret",{"t":{"return":"0:14;1:6"},"d":{}});
// search/code/sel.js
readerSearch.put("code/sel",{"t":{"self":"0:13,1,5,1,1"},"d":{}});
// search/code/sev.js
readerSearch.put("code/sev",{"t":{"several":"0:9"},"d":{}});
// search/code/spe.js
readerSearch.put("code/spe",{"t":{"spec":"0:19,1;1:5,1"},"d":{}});
// search/code/the.js
readerSearch.put("code/the",{"t":{"the":"0:1","them":"0:9"},"d":{}});
// search/code/tin.js
readerSearch.put("code/tin",{"t":{"tiny":"0:1"},"d":{}});
// search/code/to_.js
readerSearch.put("code/to_",{"t":{"to_block_mapping":"0:13"},"d":{"to_block_mapping":[[0,13,"method","BlockSpec.to_block_mapping","to_block_mapping(self, grid)"]]}});
// search/code/tro.js
readerSearch.put("code/tro",{"t":{"trojan":"0:24"},"d":{"trojan":[[0,24,"variable","TROJAN","TROJAN = 'access\\u202e\\u2066 granted'"]]}});
// search/code/tru.js
readerSearch.put("code/tru",{"t":{"true":"0:5"},"d":{}});
// search/code/tup.js
readerSearch.put("code/tup",{"t":{"tuple":"0:11"},"d":{}});
// search/code/wit.js
readerSearch.put("code/wit",{"t":{"with":"0:20"},"d":{}});
// search/docs/0.js
readerSearch.put("docs/0",[["source/fixture/core.py.html","fixture/core.py","","A tiny module for the golden page. 24 lines: 2 classes, 2 methods, 1 module-level name."],["source/fixture/call.py.html","fixture/call.py","","6 lines: 1 function."],["articles/golden-article.html","The golden article","","A page <em>about</em> two files. Read BlockSpec first. <script>alert(1)</script> x <img src=x onerror=alert(1)>"],["articles/golden-article.html#rd-s-why-blocks","Why blocks","The golden article","Because tiles. Then First kernels; 3 things, (not computed at these pins)."],["articles/golden-article.html#note-golden-blockspec","A spec is frozen:","The golden article · fixture/core.py, lines 5–11","A spec is frozen: BlockSpec.to_block_mapping makes the mapping. <script>alert(1)</script> x <img src=x onerror=alert(1)>"],["articles/golden-article.html#note-golden-call","The caller, this function; see Another article.","The golden article · fixture/call.py, lines 5–6","The caller, this function; see Another article."]]);
// search/files.js
readerSearch.put("files",{"files":[["fixture/core.py",24],["fixture/call.py",6]],"code":"1 __i a acc an arr as blo cla col com cor dat def doc eac fix for fro gol gra gri imp int its kee ker lin mod of on ove pag pal ret sel sev spe the tin to_ tro tru tup wit"});
// search/lines/0/0.js
readerSearch.put("lines/0/0",["\"\"\"A tiny module for the golden page.\"\"\"","import dataclasses","","","@dataclasses.dataclass(frozen=True)","class BlockSpec:","  \"\"\"A block of an array.","","  A docstring over several lines keeps its colour on each of them.","  \"\"\"","  block_shape: tuple[int, ...] = ()","","  def to_block_mapping(self, grid):","    return BlockMapping(self, grid)","","","class BlockMapping:","","  def __init__(self, spec, grid):","    self.spec = spec  # a comment with < & >","    self.grid = grid","","","TROJAN = \"access‮⁦ granted\""]);
// search/lines/1/0.js
readerSearch.put("lines/1/0",["from fixture import core as pallas_core","from fixture.core import BlockSpec","","","def pallas_call(kernel, spec: BlockSpec):","  return pallas_core.BlockMapping(spec, (1,))"]);
// search/text/0.js
readerSearch.put("text/0",{});
// search/text/1.js
readerSearch.put("text/1",{"not":"3"});
// search/text/10.js
readerSearch.put("text/10",{"blocks":"3","blockspec":"2,2"});
// search/text/11.js
readerSearch.put("text/11",{});
// search/text/12.js
readerSearch.put("text/12",{"frozen":"4"});
// search/text/13.js
readerSearch.put("text/13",{});
// search/text/14.js
readerSearch.put("text/14",{});
// search/text/15.js
readerSearch.put("text/15",{"function":"1,4"});
// search/text/16.js
readerSearch.put("text/16",{"script":"2,2"});
// search/text/17.js
readerSearch.put("text/17",{"why":"3"});
// search/text/18.js
readerSearch.put("text/18",{"see":"5"});
// search/text/19.js
readerSearch.put("text/19",{});
// search/text/2.js
readerSearch.put("text/2",{"24":"0"});
// search/text/20.js
readerSearch.put("text/20",{"makes":"4","mapping":"4"});
// search/text/21.js
readerSearch.put("text/21",{});
// search/text/22.js
readerSearch.put("text/22",{});
// search/text/23.js
readerSearch.put("text/23",{});
// search/text/24.js
readerSearch.put("text/24",{"methods":"0"});
// search/text/25.js
readerSearch.put("text/25",{});
// search/text/26.js
readerSearch.put("text/26",{"kernels":"3"});
// search/text/27.js
readerSearch.put("text/27",{});
// search/text/28.js
readerSearch.put("text/28",{});
// search/text/29.js
readerSearch.put("text/29",{"spec":"4"});
// search/text/3.js
readerSearch.put("text/3",{"because":"3","files":"2","first":"2,1","fixture":"0,1","two":"2"});
// search/text/30.js
readerSearch.put("text/30",{"call":"1","caller":"5"});
// search/text/31.js
readerSearch.put("text/31",{"onerror":"2,2","src":"2,2"});
// search/text/32.js
readerSearch.put("text/32",{});
// search/text/33.js
readerSearch.put("text/33",{"a":"0,2,2","about":"2"});
// search/text/34.js
readerSearch.put("text/34",{"module":"0"});
// search/text/35.js
readerSearch.put("text/35",{});
// search/text/36.js
readerSearch.put("text/36",{"img":"2,2"});
// search/text/37.js
readerSearch.put("text/37",{});
// search/text/38.js
readerSearch.put("text/38",{});
// search/text/39.js
readerSearch.put("text/39",{});
// search/text/4.js
readerSearch.put("text/4",{});
// search/text/40.js
readerSearch.put("text/40",{"em":"2","golden":"0,2"});
// search/text/41.js
readerSearch.put("text/41",{"classes":"0"});
// search/text/42.js
readerSearch.put("text/42",{"is":"4"});
// search/text/43.js
readerSearch.put("text/43",{"alert":"2,2"});
// search/text/44.js
readerSearch.put("text/44",{"computed":"3","core":"0"});
// search/text/45.js
readerSearch.put("text/45",{"another":"5"});
// search/text/46.js
readerSearch.put("text/46",{});
// search/text/47.js
readerSearch.put("text/47",{});
// search/text/48.js
readerSearch.put("text/48",{});
// search/text/49.js
readerSearch.put("text/49",{"1":"0,1,1,2","article":"2,3","page":"0,2"});
// search/text/5.js
readerSearch.put("text/5",{});
// search/text/50.js
readerSearch.put("text/50",{"2":"0"});
// search/text/51.js
readerSearch.put("text/51",{"3":"3","at":"3","name":"0","read":"2"});
// search/text/52.js
readerSearch.put("text/52",{"the":"0,2,2,1","then":"3","these":"3","things":"3","this":"5"});
// search/text/53.js
readerSearch.put("text/53",{"tiles":"3","tiny":"0"});
// search/text/54.js
readerSearch.put("text/54",{"6":"1"});
// search/text/55.js
readerSearch.put("text/55",{});
// search/text/56.js
readerSearch.put("text/56",{"x":"2,2"});
// search/text/57.js
readerSearch.put("text/57",{"level":"0","pins":"3"});
// search/text/58.js
readerSearch.put("text/58",{});
// search/text/59.js
readerSearch.put("text/59",{"to_block_mapping":"4"});
// search/text/6.js
readerSearch.put("text/6",{});
// search/text/60.js
readerSearch.put("text/60",{});
// search/text/61.js
readerSearch.put("text/61",{"lines":"0,1"});
// search/text/62.js
readerSearch.put("text/62",{});
// search/text/63.js
readerSearch.put("text/63",{});
// search/text/7.js
readerSearch.put("text/7",{});
// search/text/8.js
readerSearch.put("text/8",{});
// search/text/9.js
readerSearch.put("text/9",{"for":"0","py":"0,1"});
