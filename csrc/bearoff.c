/* Bearoff databases and the race-backgammon override (spec 6.1-6.4). */
#include "bearoff.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "datafile.h"

#ifndef BG_TRUE_DIVISION
#define DIVC(x, c) ((float)(x) * (1.0f / (float)(c)))
#else
#define DIVC(x, c) ((float)(x) / (float)(c))
#endif

/* Race-backgammon tables (numbers from gnubg's bearoffgammon.c): for the
 * bitmask g (1..31) of occupied zone points, rows racebg_first[g] ..
 * racebg_first[g] + racebg_count[g] - 1, indexed by bearoff index. */
static const int racebg_rows[461][5] = {
    {36, 0, 0, 0, 0},
    {36, 0, 0, 0, 0},
    {6, 1080, 0, 0, 0},
    {6, 1080, 0, 0, 0},
    {0, 396, 32400, 0, 0},
    {0, 396, 32400, 0, 0},
    {36, 0, 0, 0, 0},
    {26, 360, 0, 0, 0},
    {5, 1116, 0, 0, 0},
    {5, 596, 18720, 0, 0},
    {0, 335, 33596, 36000, 0},
    {0, 235, 17666, 739080, 0},
    {36, 0, 0, 0, 0},
    {6, 1080, 0, 0, 0},
    {5, 1116, 0, 0, 0},
    {5, 1116, 0, 0, 0},
    {5, 1116, 0, 0, 0},
    {5, 1016, 3600, 0, 0},
    {0, 396, 32400, 0, 0},
    {0, 396, 32400, 0, 0},
    {0, 376, 33120, 0, 0},
    {0, 335, 34596, 0, 0},
    {0, 396, 32400, 0, 0},
    {0, 376, 33120, 0, 0},
    {0, 335, 34596, 0, 0},
    {0, 335, 33596, 36000, 0},
    {0, 335, 27296, 262800, 0},
    {36, 0, 0, 0, 0},
    {17, 684, 0, 0, 0},
    {4, 999, 5508, 0, 0},
    {4, 297, 30082, 25128, 0},
    {0, 272, 24281, 450484, 90144},
    {0, 120, 11765, 983521, 4213260},
    {34, 72, 0, 0, 0},
    {5, 1116, 0, 0, 0},
    {4, 1148, 144, 0, 0},
    {4, 1148, 144, 0, 0},
    {4, 1080, 2592, 0, 0},
    {4, 739, 14860, 288, 0},
    {0, 396, 32400, 0, 0},
    {0, 371, 33292, 288, 0},
    {0, 298, 35716, 7632, 0},
    {0, 272, 34033, 101900, 576},
    {0, 388, 32680, 288, 0},
    {0, 322, 34856, 7488, 0},
    {0, 272, 34794, 74504, 576},
    {0, 272, 27197, 346480, 55152},
    {0, 256, 15488, 772640, 634752},
    {25, 396, 0, 0, 0},
    {5, 1112, 144, 0, 0},
    {4, 1112, 1440, 0, 0},
    {4, 631, 18756, 0, 0},
    {4, 615, 19324, 288, 0},
    {4, 523, 22528, 4176, 0},
    {0, 333, 33656, 36432, 0},
    {0, 322, 33854, 43560, 0},
    {0, 297, 33393, 92540, 576},
    {0, 272, 30181, 240284, 10944},
    {0, 233, 17737, 739100, 576},
    {0, 217, 18281, 739964, 10944},
    {0, 192, 18895, 747036, 127008},
    {0, 192, 17551, 782404, 595584},
    {0, 184, 14192, 886751, 1565604},
    {5, 1116, 0, 0, 0},
    {4, 1148, 144, 0, 0},
    {4, 1048, 3744, 0, 0},
    {4, 999, 5508, 0, 0},
    {0, 392, 32544, 0, 0},
    {0, 375, 33156, 0, 0},
    {0, 355, 33868, 288, 0},
    {0, 335, 34588, 288, 0},
    {0, 331, 34624, 4176, 0},
    {0, 297, 35266, 25128, 0},
    {0, 371, 33292, 288, 0},
    {0, 331, 34732, 288, 0},
    {0, 298, 35716, 7632, 0},
    {0, 331, 33728, 36432, 0},
    {0, 297, 34754, 43560, 0},
    {0, 272, 34033, 101900, 576},
    {0, 330, 27470, 263016, 0},
    {0, 297, 28537, 267356, 576},
    {0, 272, 28421, 303644, 10944},
    {0, 272, 24281, 450484, 90144},
    {34, 72, 0, 0, 0},
    {11, 880, 720, 0, 0},
    {3, 751, 15482, 9000, 0},
    {3, 163, 30547, 225808, 104400},
    {0, 195, 14249, 822591, 3288276},
    {0, 57, 8951, 767859, 18563364},
    {29, 252, 0, 0, 0},
    {5, 1116, 0, 0, 0},
    {3, 1115, 2628, 0, 0},
    {3, 1146, 1512, 0, 0},
    {3, 899, 10284, 4320, 0},
    {3, 452, 25549, 34076, 576},
    {0, 392, 32544, 0, 0},
    {0, 333, 34408, 9360, 0},
    {0, 236, 35179, 106580, 26496},
    {0, 207, 27064, 426011, 397044},
    {0, 357, 33552, 9072, 0},
    {0, 249, 35142, 91080, 25920},
    {0, 207, 28985, 359990, 284184},
    {0, 207, 16674, 753203, 2083572},
    {0, 165, 8770, 941530, 7506936},
    {23, 468, 0, 0, 0},
    {5, 1086, 1080, 0, 0},
    {3, 1043, 5212, 288, 0},
    {3, 659, 19036, 288, 0},
    {3, 583, 21510, 9720, 0},
    {3, 368, 27767, 62980, 4608},
    {0, 325, 33734, 43992, 0},
    {0, 289, 33359, 103644, 18144},
    {0, 235, 30691, 266808, 121392},
    {0, 207, 23831, 532351, 758772},
    {0, 223, 18071, 739532, 18720},
    {0, 175, 19349, 750336, 212976},
    {0, 147, 18301, 802935, 983988},
    {0, 147, 13709, 895395, 3606660},
    {0, 129, 9184, 920983, 9389700},
    {5, 1112, 144, 0, 0},
    {3, 1144, 1584, 0, 0},
    {3, 1055, 4788, 0, 0},
    {3, 857, 11792, 4464, 0},
    {0, 385, 32796, 0, 0},
    {0, 371, 33292, 288, 0},
    {0, 321, 34738, 13032, 0},
    {0, 335, 34472, 4464, 0},
    {0, 308, 34657, 32780, 576},
    {0, 235, 34181, 143452, 39168},
    {0, 345, 33984, 9072, 0},
    {0, 309, 35268, 9504, 0},
    {0, 236, 35555, 93060, 25920},
    {0, 309, 34282, 45000, 0},
    {0, 235, 34783, 122124, 26784},
    {0, 207, 28547, 375536, 292176},
    {0, 307, 28169, 267628, 1152},
    {0, 235, 29373, 316128, 54000},
    {0, 207, 25276, 488623, 460260},
    {0, 207, 15791, 778381, 2321532},
    {17, 680, 144, 0, 0},
    {4, 983, 6076, 288, 0},
    {3, 923, 9488, 1872, 0},
    {3, 333, 29949, 29900, 576},
    {3, 331, 29167, 60532, 4608},
    {3, 283, 29081, 125244, 25920},
    {0, 263, 24605, 449718, 117720},
    {0, 245, 24912, 457129, 292860},
    {0, 222, 23475, 526367, 735732},
    {0, 207, 19394, 669443, 1573812},
    {0, 120, 11720, 984849, 4223772},
    {0, 108, 11969, 985331, 4443588},
    {0, 93, 12122, 963477, 5731884},
    {0, 93, 11334, 906514, 8803800},
    {0, 93, 9540, 858470, 12858408},
    {4, 1132, 720, 0, 0},
    {3, 1091, 3484, 288, 0},
    {3, 775, 14808, 2160, 0},
    {3, 715, 16754, 9864, 0},
    {0, 367, 33436, 288, 0},
    {0, 296, 35680, 11504, 576},
    {0, 284, 35649, 28172, 576},
    {0, 268, 34079, 105284, 5760},
    {0, 252, 33761, 136812, 29376},
    {0, 222, 32167, 230992, 104400},
    {0, 309, 35114, 15032, 576},
    {0, 259, 35139, 78796, 5472},
    {0, 223, 34893, 133328, 40752},
    {0, 258, 27701, 345954, 74088},
    {0, 222, 28523, 359568, 198288},
    {0, 207, 25658, 472035, 562356},
    {0, 246, 15840, 772067, 665748},
    {0, 210, 17074, 766333, 952524},
    {0, 195, 16968, 761467, 1964916},
    {0, 195, 13487, 839379, 3671460},
    {4, 1089, 2268, 0, 0},
    {3, 647, 19404, 2592, 0},
    {3, 559, 22396, 8928, 0},
    {3, 527, 23025, 27740, 576},
    {0, 313, 34013, 49484, 576},
    {0, 293, 33443, 95796, 5184},
    {0, 277, 32921, 134556, 32832},
    {0, 267, 30329, 241000, 26640},
    {0, 252, 30183, 263560, 103536},
    {0, 222, 28408, 360893, 299628},
    {0, 211, 18473, 740252, 31680},
    {0, 186, 19069, 747694, 157752},
    {0, 162, 19534, 758017, 303228},
    {0, 185, 17752, 783317, 628812},
    {0, 162, 18254, 788219, 874836},
    {0, 147, 17470, 814155, 1657044},
    {0, 180, 14314, 886931, 1587636},
    {0, 155, 15088, 882887, 1896516},
    {0, 141, 14977, 868919, 3196404},
    {0, 141, 12630, 886913, 5590332},
    {3, 1019, 6076, 288, 0},
    {0, 355, 33824, 1872, 0},
    {0, 331, 34492, 8928, 0},
    {0, 297, 35133, 29900, 576},
    {0, 284, 34771, 59668, 4608},
    {0, 285, 35948, 16112, 576},
    {0, 284, 35025, 50636, 576},
    {0, 259, 34403, 105284, 5760},
    {0, 222, 34305, 155740, 42624},
    {0, 283, 28939, 270876, 6048},
    {0, 258, 28885, 304624, 27504},
    {0, 222, 29275, 334920, 111024},
    {0, 258, 24785, 449718, 117720},
    {0, 221, 25756, 457849, 292860},
    {0, 207, 23447, 546031, 763956},
    {31, 180, 0, 0, 0},
    {6, 975, 3772, 288, 0},
    {2, 466, 25089, 78660, 18144},
    {2, 84, 23554, 584297, 1627164},
    {0, 116, 6951, 880249, 14356620},
    {0, 18, 6042, 425561, 36475740},
    {23, 468, 0, 0, 0},
    {4, 1148, 144, 0, 0},
    {2, 995, 8200, 1584, 0},
    {2, 1066, 5688, 0, 0},
    {2, 603, 22062, 10568, 576},
    {2, 205, 32081, 163840, 67248},
    {0, 383, 32860, 288, 0},
    {0, 254, 35419, 75284, 2304},
    {0, 154, 29734, 402111, 269892},
    {0, 140, 15913, 828583, 3482100},
    {0, 296, 34104, 68256, 0},
    {0, 164, 30562, 363296, 127584},
    {0, 136, 17946, 801264, 2017440},
    {0, 120, 7889, 1002899, 8538948},
    {0, 70, 5652, 775017, 21974652},
    {19, 608, 144, 0, 0},
    {4, 1065, 3132, 0, 0},
    {2, 884, 12012, 8208, 0},
    {2, 655, 20336, 5328, 0},
    {2, 444, 26523, 55852, 7200},
    {2, 189, 30326, 243663, 214596},
    {0, 304, 33253, 88380, 5184},
    {0, 224, 30938, 271784, 135360},
    {0, 153, 24544, 564925, 1181484},
    {0, 140, 14007, 849405, 5202684},
    {0, 193, 18775, 748820, 171648},
    {0, 117, 18938, 811339, 1255572},
    {0, 100, 13699, 913601, 5157036},
    {0, 92, 7775, 917424, 13070160},
    {0, 62, 5739, 706619, 24697476},
    {4, 1130, 792, 0, 0},
    {2, 1063, 5796, 0, 0},
    {2, 991, 8364, 864, 0},
    {2, 587, 22351, 20884, 1152},
    {0, 371, 33292, 288, 0},
    {0, 357, 33712, 3312, 0},
    {0, 246, 35383, 86828, 6624},
    {0, 327, 34262, 22392, 0},
    {0, 237, 34453, 131064, 39312},
    {0, 152, 28396, 445719, 527364},
    {0, 288, 34388, 68400, 0},
    {0, 260, 35352, 69984, 0},
    {0, 158, 30668, 367220, 128880},
    {0, 259, 34481, 102492, 5184},
    {0, 157, 30147, 385270, 200952},
    {0, 140, 17532, 803268, 2295216},
    {0, 257, 28879, 305844, 38016},
    {0, 155, 26546, 508717, 517068},
    {0, 140, 16334, 823115, 3133332},
    {0, 124, 7589, 978016, 9636912},
    {14, 776, 576, 0, 0},
    {4, 913, 8552, 1872, 0},
    {2, 767, 15983, 16868, 576},
    {2, 360, 29605, 53820, 5184},
    {2, 300, 28857, 156860, 64512},
    {2, 176, 27944, 340841, 409788},
    {0, 243, 24528, 474225, 268380},
    {0, 198, 22633, 576764, 1132416},
    {0, 150, 18321, 737255, 3182580},
    {0, 140, 12063, 859951, 7342452},
    {0, 108, 11969, 977637, 4720572},
    {0, 76, 12092, 946693, 7168140},
    {0, 64, 10674, 863340, 12566448},
    {0, 64, 7844, 761133, 19913580},
    {0, 52, 6032, 616407, 28031940},
    {4, 1099, 1908, 0, 0},
    {2, 1019, 7348, 1152, 0},
    {2, 751, 16778, 9000, 0},
    {2, 520, 23769, 56524, 6336},
    {0, 342, 34202, 5112, 0},
    {0, 292, 35133, 36292, 3744},
    {0, 225, 34874, 131282, 45720},
    {0, 268, 32812, 150088, 34848},
    {0, 220, 30222, 298601, 284508},
    {0, 150, 25691, 530366, 1079064},
    {0, 262, 35170, 73880, 2304},
    {0, 222, 34976, 132004, 27504},
    {0, 154, 30031, 392356, 236160},
    {0, 220, 28078, 378260, 195408},
    {0, 151, 25786, 529760, 931104},
    {0, 140, 16413, 821065, 3104748},
    {0, 210, 16875, 771659, 1018692},
    {0, 140, 17488, 793184, 2715264},
    {0, 132, 12957, 858233, 6618924},
    {0, 128, 6962, 908191, 12776580},
    {4, 1035, 4204, 288, 0},
    {2, 642, 20738, 7704, 0},
    {2, 555, 23523, 20180, 576},
    {2, 410, 27049, 80676, 18144},
    {0, 290, 33665, 91628, 7488},
    {0, 275, 33057, 132372, 28512},
    {0, 212, 30778, 291535, 191556},
    {0, 253, 29938, 271332, 94608},
    {0, 208, 27684, 401077, 444492},
    {0, 151, 23054, 608233, 1646748},
    {0, 184, 19038, 750756, 181008},
    {0, 164, 19390, 761061, 286956},
    {0, 113, 18750, 820147, 1368756},
    {0, 164, 17961, 797571, 824580},
    {0, 111, 17708, 838828, 2139984},
    {0, 100, 13209, 915715, 5715972},
    {0, 158, 14796, 886873, 1991484},
    {0, 106, 15120, 886295, 4018500},
    {0, 96, 12026, 896601, 8123868},
    {0, 92, 7533, 877093, 14835708},
    {2, 963, 9344, 1872, 0},
    {0, 331, 34550, 6840, 0},
    {0, 311, 34757, 25292, 576},
    {0, 292, 34669, 52956, 5184},
    {0, 225, 34049, 160400, 66672},
    {0, 242, 35841, 75644, 2304},
    {0, 242, 34959, 107252, 7488},
    {0, 222, 34300, 156216, 31968},
    {0, 153, 29610, 407273, 291420},
    {0, 240, 29401, 308924, 43776},
    {0, 220, 29234, 339556, 90576},
    {0, 151, 26258, 521963, 600084},
    {0, 220, 25312, 475809, 268380},
    {0, 149, 23843, 596484, 1140480},
    {0, 140, 15529, 836357, 3699900},
    {10, 887, 1764, 0, 0},
    {3, 719, 16407, 17156, 576},
    {2, 641, 19951, 37220, 4032},
    {2, 194, 30182, 243319, 180324},
    {2, 185, 28264, 318235, 388980},
    {2, 143, 26206, 434497, 830268},
    {0, 183, 14564, 820763, 3505716},
    {0, 160, 14565, 819849, 4610412},
    {0, 136, 13405, 831119, 6827796},
    {0, 132, 10367, 861740, 9849312},
    {0, 55, 8811, 772043, 18687492},
    {0, 47, 8633, 762062, 19650744},
    {0, 40, 8204, 717461, 22138956},
    {0, 40, 7232, 643295, 26068644},
    {0, 36, 6082, 562587, 30651156},
    {3, 1079, 3916, 288, 0},
    {2, 887, 11834, 10728, 0},
    {2, 476, 25507, 51044, 4032},
    {2, 402, 27073, 90180, 18144},
    {0, 318, 34810, 14312, 576},
    {0, 232, 34908, 121056, 43200},
    {0, 200, 34336, 181552, 99648},
    {0, 200, 26978, 434919, 514404},
    {0, 176, 26107, 485813, 930780},
    {0, 147, 23378, 600873, 1678428},
    {0, 221, 35079, 128568, 64368},
    {0, 182, 29423, 372592, 429264},
    {0, 148, 27194, 487861, 754668},
    {0, 176, 17571, 762085, 2047644},
    {0, 139, 17798, 786039, 2617380},
    {0, 132, 14067, 884661, 4228956},
    {0, 152, 9103, 939942, 7739064},
    {0, 113, 10135, 926300, 8712288},
    {0, 100, 9481, 906351, 10884564},
    {0, 100, 6941, 887101, 14869404},
    {3, 985, 7264, 1584, 0},
    {2, 595, 21997, 23276, 576},
    {2, 395, 27547, 82204, 17568},
    {2, 340, 27770, 144132, 65232},
    {0, 269, 33277, 131568, 52272},
    {0, 226, 30426, 285363, 216756},
    {0, 195, 28399, 389959, 524628},
    {0, 196, 23900, 538799, 950436},
    {0, 173, 22617, 594924, 1665792},
    {0, 146, 19382, 710497, 2957436},
    {0, 159, 19533, 759847, 378612},
    {0, 133, 18457, 807913, 1255788},
    {0, 107, 17761, 834132, 2426976},
    {0, 133, 14018, 894693, 3884652},
    {0, 105, 14160, 885933, 5322348},
    {0, 100, 11603, 903632, 8232336},
    {0, 120, 9386, 919460, 9602640},
    {0, 92, 9959, 897073, 10972332},
    {0, 88, 9081, 845101, 14167836},
    {0, 88, 6944, 797786, 18640728},
    {2, 850, 13146, 11448, 0},
    {0, 310, 34855, 23044, 1152},
    {0, 296, 34455, 55420, 7200},
    {0, 232, 33661, 164996, 77472},
    {0, 200, 32377, 248703, 221076},
    {0, 209, 35429, 131512, 64656},
    {0, 208, 34703, 158780, 70560},
    {0, 182, 29012, 387017, 442620},
    {0, 147, 26918, 497879, 798372},
    {0, 207, 29618, 341130, 142776},
    {0, 181, 25868, 495979, 641268},
    {0, 146, 24254, 583029, 1232172},
    {0, 180, 16617, 776622, 2574072},
    {0, 142, 16946, 792561, 3346812},
    {0, 136, 13415, 872781, 5315004},
    {3, 876, 11070, 5832, 0},
    {2, 355, 29081, 78820, 17568},
    {2, 312, 28766, 144712, 59904},
    {2, 268, 28254, 217343, 161604},
    {0, 227, 24896, 477159, 432324},
    {0, 209, 23554, 535275, 919188},
    {0, 185, 22006, 601857, 1648188},
    {0, 194, 19630, 671532, 1799280},
    {0, 172, 18904, 699721, 2751804},
    {0, 145, 16482, 774441, 4460508},
    {0, 100, 12078, 980097, 4863996},
    {0, 87, 12104, 965251, 5971284},
    {0, 71, 11891, 942537, 7811532},
    {0, 87, 11301, 910749, 8974044},
    {0, 70, 11128, 900933, 10344780},
    {0, 64, 10008, 845763, 14062356},
    {0, 87, 9602, 858987, 13039380},
    {0, 70, 9669, 843115, 14317092},
    {0, 64, 8948, 788345, 17503164},
    {0, 64, 7347, 721049, 22000716},
    {2, 711, 17893, 20684, 576},
    {0, 277, 35301, 49644, 5184},
    {0, 250, 32889, 169600, 72432},
    {0, 216, 31766, 251079, 180900},
    {0, 191, 29823, 346777, 420300},
    {0, 196, 34817, 169610, 92808},
    {0, 195, 28619, 387703, 320724},
    {0, 180, 26178, 483327, 741636},
    {0, 147, 24325, 575456, 1366128},
    {0, 185, 17665, 769685, 1232316},
    {0, 172, 17499, 767034, 2149416},
    {0, 137, 17091, 792659, 3388644},
    {0, 172, 14184, 836845, 3932460},
    {0, 137, 14526, 834307, 5213556},
    {0, 132, 11813, 863857, 7899084},
    {2, 537, 23595, 40820, 4032},
    {0, 260, 32786, 160172, 78768},
    {0, 239, 29984, 285233, 187740},
    {0, 215, 28156, 375495, 427140},
    {0, 191, 26442, 456345, 857628},
    {0, 147, 19675, 767435, 481284},
    {0, 147, 18377, 798257, 1053900},
    {0, 133, 17615, 821824, 1846224},
    {0, 106, 17096, 842747, 3025332},
    {0, 141, 15264, 885864, 2214432},
    {0, 128, 15090, 876847, 3371076},
    {0, 101, 14852, 877549, 4913964},
    {0, 128, 12865, 889903, 5784660},
    {0, 100, 13053, 881311, 7156692},
    {0, 96, 11075, 873594, 10184616},
    {0, 278, 34449, 78676, 17568},
    {0, 196, 34220, 190904, 99936},
    {0, 195, 29493, 359469, 204444},
    {0, 195, 25955, 480507, 432324},
    {0, 180, 24042, 554123, 961236},
    {0, 146, 22638, 628265, 1698012},
};
static const unsigned short racebg_first[32] = {0, 0, 6, 12, 27, 33, 48, 63, 83, 89, 104, 119, 139, 154, 174, 194, 209, 215, 230, 245, 265, 280, 300, 320, 335, 350, 370, 390, 405, 425, 440, 455};
static const unsigned short racebg_count[32] = {0, 6, 6, 15, 6, 15, 15, 20, 6, 15, 15, 20, 15, 20, 20, 15, 6, 15, 15, 20, 15, 20, 20, 15, 15, 20, 20, 15, 20, 15, 15, 6};

/* Binomial coefficients C(n, r) for n, r <= 40 (truncated to 32 bits like
 * every index sum): bg_bearoff_index runs for every race evaluation, and a
 * table lookup replaces a loop of 64-bit divisions. Stored as BINOM[r][n]:
 * with r a constant the index's lookups need no multiply. */
#define BINOM_N 41
static unsigned int BINOM[BINOM_N][BINOM_N];
static pthread_once_t binom_once = PTHREAD_ONCE_INIT;

static void binom_init(void)
{
    unsigned long long row[BINOM_N] = {1};
    for (int n = 0; n < BINOM_N; n++) {
        for (int r = n; r > 0; r--)
            row[r] += row[r - 1];
        for (int r = 0; r < BINOM_N; r++)
            BINOM[r][n] = (unsigned int)row[r];
    }
}

static unsigned int binom(int n, int r)
{
    pthread_once(&binom_once, binom_init);
    return BINOM[r][n];
}

static inline __attribute__((always_inline)) unsigned int index_of(const unsigned int *side,
                                                                    int n_points, int n_chequers)
{
    /* gnubg's index: a bit string with bit P-1+total set, then one bit per
     * point boundary going down; each set bit at a position j below P+C adds
     * C(j, r), r = the set bits not yet counted (P at the top). Walking the
     * points visits exactly those bits, top first; gnubg's loop stops once
     * only r positions are left, where C(j, r) = 0 anyway. j only goes
     * down: once below P+C, every later point adds too. */
    int j = n_points - 1;
    for (int i = 0; i < n_points; i++)
        j += (int)side[i];
    if (j >= 64)
        return 0;
    pthread_once(&binom_once, binom_init);
    unsigned int idx = 0;
    int i = 0;
    for (; i < n_points && j >= n_chequers + n_points; i++)
        j -= (int)side[i] + 1;
    for (int r = n_points; i < n_points; i++, r--) {
        idx += BINOM[r][j];
        j -= (int)side[i] + 1;
    }
    return idx;
}

unsigned int bg_bearoff_index(const unsigned int *side, int n_points, int n_chequers)
{
    /* the databases' 6 points (every race evaluation and sanity check): a
     * constant bound lets the compiler unroll the loops */
    if (n_points == 6)
        return index_of(side, 6, n_chequers);
    return index_of(side, n_points, n_chequers);
}

/* ---- loading ---------------------------------------------------------- */

static int header_num(const unsigned char *h, int off, int width)
{
    int v = 0;
    for (int i = 0; i < width; i++) {
        if (h[off + i] < '0' || h[off + i] > '9')
            return -1;
        v = v * 10 + (h[off + i] - '0');
    }
    return v;
}

static unsigned int rd16(const unsigned char *p) { return (unsigned int)p[0] | (unsigned int)p[1] << 8; }

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void bg_bearoff_os_free(bg_bearoff_os *db)
{
    if (!db)
        return;
    free(db->data);
    memset(db, 0, sizeof *db);
}

void bg_bearoff_ts_free(bg_bearoff_ts *db)
{
    if (!db)
        return;
    free(db->data);
    memset(db, 0, sizeof *db);
}

int bg_bearoff_os_load(bg_bearoff_os *db, const char *path, char *err, int errlen)
{
    memset(db, 0, sizeof *db);
    unsigned char *buf;
    size_t len;
    if (bg_read_file(path, &buf, &len, err, errlen))
        return -1;
    const char *why = NULL;
    if (len < 40 || memcmp(buf, "gnubg-OS-", 9) != 0) {
        why = len < 40 ? "truncated: no complete 40-byte header"
                       : "not a gnubg one-sided bearoff database (header is not 'gnubg-OS-')";
        bg_file_error(err, errlen, path, "%s", why);
        free(buf);
        return -1;
    }
    int np = header_num(buf, 9, 2), nc = header_num(buf, 12, 2);
    int gammon = header_num(buf, 15, 1), compressed = header_num(buf, 17, 1),
        nd = header_num(buf, 19, 1);
    if (np != 6 || nc != 15) {
        bg_file_error(err, errlen, path,
                      "one-sided database is %d points x %d chequers; need 6 x 15 (gnubg_os0.bd)", np,
                      nc);
        free(buf);
        return -1;
    }
    if (gammon != 1 || (compressed != 0 && compressed != 1) || nd != 0) {
        bg_file_error(err, errlen, path,
                      "unsupported one-sided database flags (gammon=%d compressed=%d nd=%d); need "
                      "gammon data, no normal-distribution format",
                      gammon, compressed, nd);
        free(buf);
        return -1;
    }
    unsigned int npos = binom(np + nc, np);
    if (compressed) {
        size_t index_end = 40 + (size_t)npos * 8;
        if (len < index_end) {
            bg_file_error(err, errlen, path, "truncated: %zu bytes, the index alone needs %zu", len,
                          index_end);
            free(buf);
            return -1;
        }
        size_t max_end = index_end;
        for (unsigned int id = 0; id < npos; id++) {
            const unsigned char *e = buf + 40 + (size_t)id * 8;
            size_t off = rd32(e);
            unsigned int nz = e[4], ioff = e[5], nzg = e[6], ioffg = e[7];
            if (nz + ioff > 32 || nzg + ioffg > 32) {
                bg_file_error(err, errlen, path, "corrupt index entry %u (counts out of range)", id);
                free(buf);
                return -1;
            }
            size_t end = index_end + 2 * off + 2 * (size_t)(nz + nzg);
            if (off > len || end > len) {
                bg_file_error(err, errlen, path,
                              "truncated or corrupt: entry %u points past the end of the file", id);
                free(buf);
                return -1;
            }
            if (end > max_end)
                max_end = end;
        }
        if (max_end != len) {
            bg_file_error(err, errlen, path, "corrupt: %zu bytes, the index describes %zu", len,
                          max_end);
            free(buf);
            return -1;
        }
    } else {
        size_t want = 40 + (size_t)npos * 128;
        if (len != want) {
            bg_file_error(err, errlen, path, "%s: %zu bytes, expected %zu",
                          len < want ? "truncated" : "wrong size", len, want);
            free(buf);
            return -1;
        }
    }
    db->data = buf;
    db->size = len;
    db->n_points = np;
    db->n_chequers = nc;
    db->gammon = gammon;
    db->compressed = compressed;
    db->n_pos = npos;
    db->digest = bg_fnv1a(BG_FNV_OFFSET, buf, len);
    return 0;
}

int bg_bearoff_ts_load(bg_bearoff_ts *db, const char *path, char *err, int errlen)
{
    memset(db, 0, sizeof *db);
    unsigned char *buf;
    size_t len;
    if (bg_read_file(path, &buf, &len, err, errlen))
        return -1;
    if (len < 40 || memcmp(buf, "gnubg-TS-", 9) != 0) {
        bg_file_error(err, errlen, path, "%s",
                      len < 40 ? "truncated: no complete 40-byte header"
                               : "not a gnubg two-sided bearoff database (header is not 'gnubg-TS-')");
        free(buf);
        return -1;
    }
    int np = header_num(buf, 9, 2), nc = header_num(buf, 12, 2), cubeful = header_num(buf, 15, 1);
    if (np != 6 || nc != 6 || (cubeful != 0 && cubeful != 1)) {
        bg_file_error(err, errlen, path,
                      "two-sided database is %d points x %d chequers (cubeful=%d); need 6 x 6 "
                      "(gnubg_ts0.bd)",
                      np, nc, cubeful);
        free(buf);
        return -1;
    }
    unsigned int npos = binom(np + nc, np);
    int k = cubeful ? 4 : 1;
    size_t want = 40 + (size_t)npos * npos * 2 * (size_t)k;
    if (len != want) {
        bg_file_error(err, errlen, path, "%s: %zu bytes, expected %zu",
                      len < want ? "truncated" : "wrong size", len, want);
        free(buf);
        return -1;
    }
    db->data = buf;
    db->size = len;
    db->n_points = np;
    db->n_chequers = nc;
    db->n_values = k;
    db->n_pos = npos;
    db->digest = bg_fnv1a(BG_FNV_OFFSET, buf, len);
    return 0;
}

/* ---- lookups ---------------------------------------------------------- */

void bg_bearoff_os_dist(const bg_bearoff_os *db, unsigned int id, unsigned short prob[32],
                        unsigned short gammon[32])
{
    memset(prob, 0, 32 * sizeof prob[0]);
    memset(gammon, 0, 32 * sizeof gammon[0]);
    if (id >= db->n_pos)
        return;
    if (db->compressed) {
        const unsigned char *e = db->data + 40 + (size_t)id * 8;
        const unsigned char *p = db->data + 40 + (size_t)db->n_pos * 8 + 2 * (size_t)rd32(e);
        unsigned int nz = e[4], ioff = e[5], nzg = e[6], ioffg = e[7];
        for (unsigned int i = 0; i < nz; i++, p += 2)
            prob[ioff + i] = (unsigned short)rd16(p);
        for (unsigned int i = 0; i < nzg; i++, p += 2)
            gammon[ioffg + i] = (unsigned short)rd16(p);
    } else {
        const unsigned char *p = db->data + 40 + (size_t)id * 128;
        for (int i = 0; i < 32; i++)
            prob[i] = (unsigned short)rd16(p + 2 * i);
        for (int i = 0; i < 32; i++)
            gammon[i] = (unsigned short)rd16(p + 64 + 2 * i);
    }
}

int bg_bearoff_os_max_rolls(const bg_bearoff_os *db, unsigned int id)
{
    if (id >= db->n_pos)
        return 0;
    const unsigned char *p;
    int first = 0, n = 32;
    if (db->compressed) {
        const unsigned char *e = db->data + 40 + (size_t)id * 8;
        p = db->data + 40 + (size_t)db->n_pos * 8 + 2 * (size_t)rd32(e);
        n = e[4];
        first = e[5];
    } else {
        p = db->data + 40 + (size_t)id * 128;
    }
    for (int i = n - 1; i >= 0; i--)
        if (rd16(p + 2 * i))
            return first + i;
    return 0;
}

static unsigned int side_total(const unsigned int *s)
{
    unsigned int t = 0;
    for (int i = 0; i < 25; i++)
        t += s[i];
    return t;
}

/* sum_i sum_{j >= i+off} a[i]*b[j] as the reference build computes it: each
 * inner sum in four partial sums (j - i - off = L mod 4) over the largest
 * multiple of 4 terms, combined as (s0 + s2) + (s1 + s3) and added to the
 * total, then the remaining terms one by one. */
static float tri_sum(const float *a, const float *b, int off)
{
    float w = 0.0f;
    for (int i = 0; i < 32; i++) {
        int start = i + off, n = 32 - start;
        if (n <= 0)
            break;
        int main = n & ~3;
        float l[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int t = 0; t < main; t++)
            l[t & 3] = l[t & 3] + a[i] * b[start + t];
        if (main)
            w = w + ((l[0] + l[2]) + (l[1] + l[3]));
        for (int j = start + main; j < 32; j++)
            w = w + a[i] * b[j];
    }
    return w;
}

void bg_bearoff_os_eval(const bg_bearoff_os *db, const bg_board b, float out[5])
{
    unsigned short p0r[32], g0r[32], p1r[32], g1r[32];
    bg_bearoff_os_dist(db, bg_bearoff_index(b[0], 6, 15), p0r, g0r);
    bg_bearoff_os_dist(db, bg_bearoff_index(b[1], 6, 15), p1r, g1r);
    float p0[32], g0[32], p1[32], g1[32];
    for (int i = 0; i < 32; i++) {
        p0[i] = DIVC(p0r[i], 65535);
        g0[i] = DIVC(g0r[i], 65535);
        p1[i] = DIVC(p1r[i], 65535);
        g1[i] = DIVC(g1r[i], 65535);
    }
    float win = tri_sum(p1, p0, 0);
    float wg = 0.0f, lg = 0.0f;
    if (side_total(b[0]) == 15 || side_total(b[1]) == 15) {
        wg = tri_sum(p1, g0, 0);
        lg = tri_sum(p0, g1, 1);
    }
    out[0] = win;
    out[1] = wg;
    out[2] = 0.0f;
    out[3] = lg;
    out[4] = 0.0f;
}

void bg_bearoff_ts_eval(const bg_bearoff_ts *db, const bg_board b, float out[5])
{
    unsigned int i1 = bg_bearoff_index(b[1], 6, 6), i0 = bg_bearoff_index(b[0], 6, 6);
    float win = 0.0f;
    if (i1 < db->n_pos && i0 < db->n_pos) {
        size_t pos = (size_t)i1 * db->n_pos + i0;
        unsigned int v = rd16(db->data + 40 + 2 * (size_t)db->n_values * pos);
        float eq = DIVC(v, 32767.5f) - 1.0f;
        win = eq * 0.5f + 0.5f;
    }
    out[0] = win;
    out[1] = out[2] = out[3] = out[4] = 0.0f;
}

/* ---- race backgammon ---------------------------------------------------- */

static float race_bg_prob(const bg_bearoff_os *os, const bg_bearoff_ts *ts, const bg_board b,
                          int side)
{
    const unsigned int *me = b[side], *opp = b[1 - side];
    int home = 0, opp_pips = 0;
    for (int i = 0; i < 6; i++)
        home += (int)me[i];
    for (int i = 18; i <= 22; i++)
        opp_pips += (int)opp[i] * (i - 17);
    if (!((home + 3) / 4 - (side == 1 ? 1 : 0) <= (opp_pips + 2) / 3))
        return 0.0f;

    unsigned int z[6];
    int zsum = 0;
    for (int t = 0; t < 6; t++)
        z[t] = opp[18 + t];
    for (int t = 0; t < 5; t++)
        zsum += (int)z[t];

    float p;
    if (zsum <= 6) {
        int g = 0, np = 0;
        unsigned int packed[6] = {0, 0, 0, 0, 0, 0};
        for (int t = 0; t < 5; t++) {
            if (z[t]) {
                g |= 1 << t;
                packed[np++] = z[t] - 1;
            }
        }
        if (g == 0)
            return 0.0f;
        unsigned int row = bg_bearoff_index(packed, np, 15 - np);
        if (row >= racebg_count[g])
            return 0.0f;
        const int *y = racebg_rows[racebg_first[g] + row];
        unsigned short a[32], ga[32];
        bg_bearoff_os_dist(os, bg_bearoff_index(me, 6, 15), a, ga);
        p = 0.0f;
        int scale = side == 0 ? 36 : 1;
        for (int j = 1 - side; j < 5; j++) {
            scale *= 36;
            int s = 0;
            for (int i = 1; i <= j + side; i++)
                s += a[i];
            p += (float)y[j] / (float)scale * (float)s;
        }
        p = DIVC(p, 65535);
    } else {
        bg_board dummy;
        memset(dummy, 0, sizeof dummy);
        for (int i = 0; i < 25; i++)
            dummy[side][i] = me[i];
        for (int t = 0; t < 6; t++)
            dummy[1 - side][t] = z[t];
        float o[5];
        if (bg_bearoff_index(dummy[0], 6, 15) <= 923 && bg_bearoff_index(dummy[1], 6, 15) <= 923)
            bg_bearoff_ts_eval(ts, (const unsigned int(*)[25])dummy, o);
        else
            bg_bearoff_os_eval(os, (const unsigned int(*)[25])dummy, o);
        p = side == 1 ? o[0] : 1.0f - o[0];
    }
    return p > 1.0f ? 1.0f : p;
}

void bg_race_bg_override(const bg_bearoff_os *os, const bg_bearoff_ts *ts, const bg_board b,
                         float out[5])
{
    int men0 = 0, men1 = 0;
    int far0 = 0, far1 = 0;
    for (int i = 0; i < 24; i++) {
        men0 += (int)b[0][i];
        men1 += (int)b[1][i];
    }
    for (int i = 18; i < 24; i++) {
        far0 |= b[0][i] > 0;
        far1 |= b[1][i] > 0;
    }
    int side;
    if (men0 == 15 && far0)
        side = 1;
    else if (men1 == 15 && far1)
        side = 0;
    else
        return;
    float p = race_bg_prob(os, ts, b, side);
    if (p > 0.0f) {
        if (side == 1) {
            out[2] = p;
            if (out[1] < p)
                out[1] = p;
        } else {
            out[4] = p;
            if (out[3] < p)
                out[3] = p;
        }
    } else {
        out[side == 1 ? 2 : 4] = 0.0f;
    }
}
