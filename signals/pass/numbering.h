/*
 * numbering.h -- Ball-Larus path numbering of one function's control-flow graph
 * (Ammons, Ball and Larus, PLDI 1997, section 2), on plain block numbers so it can be
 * computed, checked and printed apart from the IR it came from.
 *
 * The graph is the function's blocks 0..n-1 (0 the entry), each with its distinct
 * successors in a chosen order, plus two virtual nodes: ENTRY (-1), whose one real
 * edge goes to block 0, and EXIT (-2), reached from every returning block. A
 * depth-first search from block 0 finds the back edges (any edge to a block still on
 * the search stack: this covers irreducible loops too). Each back edge u->v is replaced
 * by two pseudo edges, ENTRY->v ("start") and u->EXIT ("end"); several back edges into
 * one header share its start edge and several from one block share its end edge, so
 * that every path of the resulting acyclic graph is a distinct sequence of blocks.
 *
 * NP(v), the number of paths from v to EXIT, is NP(EXIT) = 1 and the sum over v's
 * successors otherwise. The edge from v to its i-th successor w_i gets
 * Val = NP(w_1) + ... + NP(w_{i-1}), so the sums along the ENTRY->EXIT paths are
 * exactly 0 .. NP(ENTRY)-1, each once, and a path is recovered from its number by the
 * greedy rule: from ENTRY with `remaining` = the number, take the edge with the largest
 * Val not above `remaining`, subtract, repeat until EXIT. Blocks from which EXIT
 * cannot be reached (ending in unreachable or resume, with no loop around them) have
 * NP 0: edges into them get no number and are left out, since no path through them is
 * ever published.
 */
#ifndef SHIM_PASS_NUMBERING_H
#define SHIM_PASS_NUMBERING_H

#include <cstdint>
#include <string>
#include <vector>

namespace shimpass
{

constexpr int kEntry = -1; /* the virtual ENTRY node in edge lists */
constexpr int kExit = -2;  /* the virtual EXIT node */

enum class EdgeKind { Entry, Edge, Start, End, Return };

const char *edgeKindName(EdgeKind k);

/* One function's control flow, on block numbers. */
struct FlowGraph {
    /* Distinct successors of each block, in the order Val is assigned (the caller puts
     * first the edges it cannot place code on, so that they get Val 0). */
    std::vector<std::vector<int>> succ;
    /* Blocks that return to the caller: each has an edge to EXIT. */
    std::vector<bool> returns;
};

/* An edge of the acyclic graph that the numbering is defined on. */
struct DagEdge {
    int from, to; /* block numbers, or kEntry / kExit */
    uint64_t val;
    EdgeKind kind;
};

struct Numbering {
    uint64_t paths = 0;                     /* NP(ENTRY); UINT64_MAX when saturated */
    bool saturated = false;                 /* more than UINT64_MAX - 1 paths */
    double approxPaths = 0;                 /* NP(ENTRY) as a floating-point number, for messages */
    std::vector<bool> reachable;            /* from block 0 */
    std::vector<std::vector<bool>> back;    /* back[u][k]: succ[u][k] is a back edge */
    std::vector<std::vector<bool>> live;    /* live[u][k]: a numbered forward edge */
    std::vector<std::vector<uint64_t>> val; /* val[u][k]: its Val (0 when not live) */
    std::vector<bool> hasEnd, hasStart;     /* u -> EXIT end edge, ENTRY -> v start edge */
    std::vector<uint64_t> endVal, startVal, returnVal;
    std::vector<uint64_t> np;   /* NP of each block (saturated) */
    std::vector<DagEdge> edges; /* the listing: by source, ENTRY first, then
                                 * blocks in order; each source's edges in
                                 * increasing Val */
};

Numbering numberPaths(const FlowGraph &g);

/* The block sequence of path `id` by the greedy rule; empty when the rule does not end
 * at EXIT with nothing remaining. */
std::vector<int> regeneratePath(const Numbering &n, uint64_t id);

/* Enumerates every ENTRY->EXIT path (only when there are at most `limit`) and checks
 * that the sums are distinct, cover 0..paths-1, and regenerate to the same paths.
 * Returns "" when all holds, else what failed. */
std::string verifyNumbering(const Numbering &n, uint64_t limit);

} // namespace shimpass

#endif
