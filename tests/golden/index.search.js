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
// search/tri/__i.js
readerSearch.put("tri/__i","0");
// search/tri/_bl.js
readerSearch.put("tri/_bl","0");
// search/tri/_ca.js
readerSearch.put("tri/_ca","1");
// search/tri/_co.js
readerSearch.put("tri/_co","1");
// search/tri/_in.js
readerSearch.put("tri/_in","0");
// search/tri/_ma.js
readerSearch.put("tri/_ma","0");
// search/tri/_sh.js
readerSearch.put("tri/_sh","0");
// search/tri/acc.js
readerSearch.put("tri/acc","0");
// search/tri/ach.js
readerSearch.put("tri/ach","0");
// search/tri/acl.js
readerSearch.put("tri/acl","0");
// search/tri/age.js
readerSearch.put("tri/age","0");
// search/tri/all.js
readerSearch.put("tri/all","1");
// search/tri/ant.js
readerSearch.put("tri/ant","0");
// search/tri/ape.js
readerSearch.put("tri/ape","0");
// search/tri/app.js
readerSearch.put("tri/app","0,1");
// search/tri/arr.js
readerSearch.put("tri/arr","0");
// search/tri/as_.js
readerSearch.put("tri/as_","1");
// search/tri/ass.js
readerSearch.put("tri/ass","0");
// search/tri/ata.js
readerSearch.put("tri/ata","0");
// search/tri/blo.js
readerSearch.put("tri/blo","0,1");
// search/tri/cal.js
readerSearch.put("tri/cal","1");
// search/tri/cce.js
readerSearch.put("tri/cce","0");
// search/tri/ces.js
readerSearch.put("tri/ces","0");
// search/tri/ck_.js
readerSearch.put("tri/ck_","0");
// search/tri/ckm.js
readerSearch.put("tri/ckm","0,1");
// search/tri/cks.js
readerSearch.put("tri/cks","0,1");
// search/tri/cla.js
readerSearch.put("tri/cla","0");
// search/tri/col.js
readerSearch.put("tri/col","0");
// search/tri/com.js
readerSearch.put("tri/com","0");
// search/tri/cor.js
readerSearch.put("tri/cor","1");
// search/tri/cst.js
readerSearch.put("tri/cst","0");
// search/tri/dat.js
readerSearch.put("tri/dat","0");
// search/tri/def.js
readerSearch.put("tri/def","0,1");
// search/tri/den.js
readerSearch.put("tri/den","0");
// search/tri/doc.js
readerSearch.put("tri/doc","0");
// search/tri/dul.js
readerSearch.put("tri/dul","0");
// search/tri/eac.js
readerSearch.put("tri/eac","0");
// search/tri/eep.js
readerSearch.put("tri/eep","0");
// search/tri/elf.js
readerSearch.put("tri/elf","0");
// search/tri/ent.js
readerSearch.put("tri/ent","0");
// search/tri/eps.js
readerSearch.put("tri/eps","0");
// search/tri/era.js
readerSearch.put("tri/era","0");
// search/tri/ern.js
readerSearch.put("tri/ern","1");
// search/tri/ess.js
readerSearch.put("tri/ess","0");
// search/tri/etu.js
readerSearch.put("tri/etu","0,1");
// search/tri/eve.js
readerSearch.put("tri/eve","0");
// search/tri/fix.js
readerSearch.put("tri/fix","1");
// search/tri/for.js
readerSearch.put("tri/for","0");
// search/tri/fro.js
readerSearch.put("tri/fro","0,1");
// search/tri/gol.js
readerSearch.put("tri/gol","0");
// search/tri/gra.js
readerSearch.put("tri/gra","0");
// search/tri/gri.js
readerSearch.put("tri/gri","0");
// search/tri/hap.js
readerSearch.put("tri/hap","0");
// search/tri/hem.js
readerSearch.put("tri/hem","0");
// search/tri/imp.js
readerSearch.put("tri/imp","0,1");
// search/tri/ine.js
readerSearch.put("tri/ine","0");
// search/tri/ing.js
readerSearch.put("tri/ing","0,1");
// search/tri/ini.js
readerSearch.put("tri/ini","0");
// search/tri/int.js
readerSearch.put("tri/int","0");
// search/tri/iny.js
readerSearch.put("tri/iny","0");
// search/tri/it_.js
readerSearch.put("tri/it_","0");
// search/tri/ith.js
readerSearch.put("tri/ith","0");
// search/tri/its.js
readerSearch.put("tri/its","0");
// search/tri/ixt.js
readerSearch.put("tri/ixt","1");
// search/tri/jan.js
readerSearch.put("tri/jan","0");
// search/tri/k_m.js
readerSearch.put("tri/k_m","0");
// search/tri/k_s.js
readerSearch.put("tri/k_s","0");
// search/tri/kee.js
readerSearch.put("tri/kee","0");
// search/tri/ker.js
readerSearch.put("tri/ker","1");
// search/tri/kma.js
readerSearch.put("tri/kma","0,1");
// search/tri/ksp.js
readerSearch.put("tri/ksp","0,1");
// search/tri/las.js
readerSearch.put("tri/las","0,1");
// search/tri/lde.js
readerSearch.put("tri/lde","0");
// search/tri/lin.js
readerSearch.put("tri/lin","0");
// search/tri/lla.js
readerSearch.put("tri/lla","1");
// search/tri/loc.js
readerSearch.put("tri/loc","0,1");
// search/tri/lou.js
readerSearch.put("tri/lou","0");
// search/tri/map.js
readerSearch.put("tri/map","0,1");
// search/tri/men.js
readerSearch.put("tri/men","0");
// search/tri/mme.js
readerSearch.put("tri/mme","0");
// search/tri/mod.js
readerSearch.put("tri/mod","0");
// search/tri/mpo.js
readerSearch.put("tri/mpo","0,1");
// search/tri/nel.js
readerSearch.put("tri/nel","1");
// search/tri/nes.js
readerSearch.put("tri/nes","0");
// search/tri/nit.js
readerSearch.put("tri/nit","0");
// search/tri/nte.js
readerSearch.put("tri/nte","0");
// search/tri/o_b.js
readerSearch.put("tri/o_b","0");
// search/tri/ock.js
readerSearch.put("tri/ock","0,1");
// search/tri/ocs.js
readerSearch.put("tri/ocs","0");
// search/tri/odu.js
readerSearch.put("tri/odu","0");
// search/tri/oja.js
readerSearch.put("tri/oja","0");
// search/tri/old.js
readerSearch.put("tri/old","0");
// search/tri/olo.js
readerSearch.put("tri/olo","0");
// search/tri/omm.js
readerSearch.put("tri/omm","0");
// search/tri/ore.js
readerSearch.put("tri/ore","1");
// search/tri/ort.js
readerSearch.put("tri/ort","0,1");
// search/tri/our.js
readerSearch.put("tri/our","0");
// search/tri/ove.js
readerSearch.put("tri/ove","0");
// search/tri/oze.js
readerSearch.put("tri/oze","0");
// search/tri/pag.js
readerSearch.put("tri/pag","0");
// search/tri/pal.js
readerSearch.put("tri/pal","1");
// search/tri/pec.js
readerSearch.put("tri/pec","0,1");
// search/tri/pin.js
readerSearch.put("tri/pin","0,1");
// search/tri/ple.js
readerSearch.put("tri/ple","0");
// search/tri/por.js
readerSearch.put("tri/por","0,1");
// search/tri/ppi.js
readerSearch.put("tri/ppi","0,1");
// search/tri/ral.js
readerSearch.put("tri/ral","0");
// search/tri/ran.js
readerSearch.put("tri/ran","0");
// search/tri/ray.js
readerSearch.put("tri/ray","0");
// search/tri/ret.js
readerSearch.put("tri/ret","0,1");
// search/tri/rid.js
readerSearch.put("tri/rid","0");
// search/tri/rin.js
readerSearch.put("tri/rin","0");
// search/tri/rne.js
readerSearch.put("tri/rne","1");
// search/tri/roj.js
readerSearch.put("tri/roj","0");
// search/tri/rom.js
readerSearch.put("tri/rom","1");
// search/tri/roz.js
readerSearch.put("tri/roz","0");
// search/tri/rra.js
readerSearch.put("tri/rra","0");
// search/tri/rue.js
readerSearch.put("tri/rue","0");
// search/tri/s_c.js
readerSearch.put("tri/s_c","1");
// search/tri/sel.js
readerSearch.put("tri/sel","0");
// search/tri/ses.js
readerSearch.put("tri/ses","0");
// search/tri/sev.js
readerSearch.put("tri/sev","0");
// search/tri/sha.js
readerSearch.put("tri/sha","0");
// search/tri/spe.js
readerSearch.put("tri/spe","0,1");
// search/tri/sse.js
readerSearch.put("tri/sse","0");
// search/tri/str.js
readerSearch.put("tri/str","0");
// search/tri/t__.js
readerSearch.put("tri/t__","0");
// search/tri/tac.js
readerSearch.put("tri/tac","0");
// search/tri/ted.js
readerSearch.put("tri/ted","0");
// search/tri/the.js
readerSearch.put("tri/the","0");
// search/tri/tin.js
readerSearch.put("tri/tin","0");
// search/tri/to_.js
readerSearch.put("tri/to_","0");
// search/tri/tri.js
readerSearch.put("tri/tri","0");
// search/tri/tro.js
readerSearch.put("tri/tro","0");
// search/tri/tru.js
readerSearch.put("tri/tru","0");
// search/tri/tup.js
readerSearch.put("tri/tup","0");
// search/tri/tur.js
readerSearch.put("tri/tur","0,1");
// search/tri/ule.js
readerSearch.put("tri/ule","0");
// search/tri/upl.js
readerSearch.put("tri/upl","0");
// search/tri/ure.js
readerSearch.put("tri/ure","1");
// search/tri/urn.js
readerSearch.put("tri/urn","0,1");
// search/tri/ver.js
readerSearch.put("tri/ver","0");
// search/tri/wit.js
readerSearch.put("tri/wit","0");
// search/tri/xtu.js
readerSearch.put("tri/xtu","1");
// search/tri/zen.js
readerSearch.put("tri/zen","0");
