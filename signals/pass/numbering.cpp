/*
 * numbering.cpp -- Ball-Larus path numbering on block numbers (see numbering.h).
 *
 * Two depth-first searches: one over the real edges from block 0 marks the back edges,
 * one over the acyclic graph (real forward edges plus the start, end and return edges)
 * from ENTRY gives a postorder, in which NP and then Val are computed. Path counts grow
 * exponentially with the number of branches in sequence, so sums saturate at
 * UINT64_MAX: a saturated count is always above the largest limit the pass accepts,
 * and such a function is never instrumented for paths.
 */
#include "signals/pass/numbering.h"

#include <algorithm>
#include <utility>

namespace shimpass
{

const char *edgeKindName(EdgeKind k)
{
    switch (k) {
    case EdgeKind::Entry:
        return "entry";
    case EdgeKind::Edge:
        return "edge";
    case EdgeKind::Start:
        return "start";
    case EdgeKind::End:
        return "end";
    case EdgeKind::Return:
        return "return";
    }
    return "edge";
}

static uint64_t addSaturated(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    return s < a ? UINT64_MAX : s;
}

namespace
{

/* An out-edge of the acyclic graph, on internal node numbers (blocks 0..n-1, ENTRY n,
 * EXIT n+1), with the real edge it stands for when it is one. */
struct Out {
    int to;
    EdgeKind kind;
    int k; /* index in succ[from] for a real edge, else -1 */
};

} // namespace

/* Marks the back edges: edges to a block still on the stack of a depth-first search
 * from block 0. Iterative, since functions can have many thousands of blocks. */
static void findBackEdges(const FlowGraph &g, Numbering &n)
{
    size_t blocks = g.succ.size();
    std::vector<uint8_t> state(blocks, 0); /* 0 new, 1 on the stack, 2 finished */
    std::vector<std::pair<int, size_t>> stack;
    if (blocks == 0) return;
    stack.push_back({0, 0});
    state[0] = 1;
    n.reachable[0] = true;
    while (!stack.empty()) {
        auto &top = stack.back();
        int u = top.first;
        if (top.second == g.succ[u].size()) {
            state[u] = 2;
            stack.pop_back();
            continue;
        }
        size_t k = top.second++;
        int v = g.succ[u][k];
        if (state[v] == 1) {
            n.back[u][k] = true;
        } else if (state[v] == 0) {
            state[v] = 1;
            n.reachable[v] = true;
            stack.push_back({v, 0});
        }
    }
}

Numbering numberPaths(const FlowGraph &g)
{
    Numbering n;
    int blocks = (int)g.succ.size();
    int entry = blocks, exit = blocks + 1;
    n.reachable.assign(blocks, false);
    n.back.resize(blocks);
    n.live.resize(blocks);
    n.val.resize(blocks);
    for (int u = 0; u < blocks; u++) {
        n.back[u].assign(g.succ[u].size(), false);
        n.live[u].assign(g.succ[u].size(), false);
        n.val[u].assign(g.succ[u].size(), 0);
    }
    n.hasEnd.assign(blocks, false);
    n.hasStart.assign(blocks, false);
    n.endVal.assign(blocks, 0);
    n.startVal.assign(blocks, 0);
    n.returnVal.assign(blocks, 0);
    n.np.assign(blocks, 0);
    if (blocks == 0) return n;
    findBackEdges(g, n);

    std::vector<std::vector<Out>> dag(blocks + 2);
    for (int u = 0; u < blocks; u++) {
        if (!n.reachable[u]) continue;
        for (size_t k = 0; k < g.succ[u].size(); k++) {
            int v = g.succ[u][k];
            if (n.back[u][k]) {
                if (!n.hasEnd[u]) dag[u].push_back({exit, EdgeKind::End, -1});
                n.hasEnd[u] = true;
                n.hasStart[v] = true;
            } else {
                dag[u].push_back({v, EdgeKind::Edge, (int)k});
            }
        }
        /* a block that returns has no successors in an IR function; a graph that
         * gave it both kept the end edge, so no two edges join the same nodes */
        if (g.returns[u] && !n.hasEnd[u]) dag[u].push_back({exit, EdgeKind::Return, -1});
    }
    dag[entry].push_back({0, EdgeKind::Entry, -1});
    for (int v = 0; v < blocks; v++)
        if (n.hasStart[v]) dag[entry].push_back({v, EdgeKind::Start, -1});

    /* postorder of the acyclic graph from ENTRY: successors before predecessors */
    std::vector<int> post;
    std::vector<uint8_t> seen(blocks + 2, 0);
    std::vector<std::pair<int, size_t>> stack{{entry, 0}};
    seen[entry] = 1;
    while (!stack.empty()) {
        auto &top = stack.back();
        int x = top.first;
        if (top.second == dag[x].size()) {
            post.push_back(x);
            stack.pop_back();
            continue;
        }
        int y = dag[x][top.second++].to;
        if (!seen[y]) {
            seen[y] = 1;
            stack.push_back({y, 0});
        }
    }

    std::vector<uint64_t> np(blocks + 2, 0);
    std::vector<double> approx(blocks + 2, 0);
    std::vector<std::vector<uint64_t>> outVal(blocks + 2);
    for (int x : post) {
        if (x == exit) {
            np[x] = 1;
            approx[x] = 1;
            continue;
        }
        uint64_t sum = 0;
        double asum = 0;
        outVal[x].assign(dag[x].size(), 0);
        for (size_t i = 0; i < dag[x].size(); i++) {
            outVal[x][i] = sum;
            sum = addSaturated(sum, np[dag[x][i].to]);
            asum += approx[dag[x][i].to];
        }
        np[x] = sum;
        approx[x] = asum;
    }
    n.paths = np[entry];
    n.saturated = np[entry] == UINT64_MAX;
    n.approxPaths = approx[entry];
    for (int u = 0; u < blocks; u++)
        n.np[u] = np[u];

    /* the listing, and Val per real and pseudo edge; edges into NP-0 nodes are dead */
    for (size_t i = 0; i < dag[entry].size(); i++) {
        const Out &o = dag[entry][i];
        if (np[o.to] == 0) continue;
        if (o.kind == EdgeKind::Start) n.startVal[o.to] = outVal[entry][i];
        n.edges.push_back({kEntry, o.to, outVal[entry][i], o.kind});
    }
    for (int u = 0; u < blocks; u++) {
        for (size_t i = 0; i < dag[u].size(); i++) {
            const Out &o = dag[u][i];
            if (np[o.to] == 0) continue;
            uint64_t v = outVal[u][i];
            int to = o.to == exit ? kExit : o.to;
            if (o.kind == EdgeKind::Edge) {
                n.live[u][o.k] = true;
                n.val[u][o.k] = v;
            } else if (o.kind == EdgeKind::End) {
                n.endVal[u] = v;
            } else if (o.kind == EdgeKind::Return) {
                n.returnVal[u] = v;
            }
            n.edges.push_back({u, to, v, o.kind});
        }
    }
    return n;
}

/* Out-edges of each node in the listing, ENTRY at index 0 and blocks from 1. */
static std::vector<std::vector<const DagEdge *>> edgesBySource(const Numbering &n)
{
    std::vector<std::vector<const DagEdge *>> out(n.reachable.size() + 1);
    for (const DagEdge &e : n.edges)
        out[e.from + 1].push_back(&e);
    return out;
}

static std::vector<int> regenerate(const std::vector<std::vector<const DagEdge *>> &out,
                                   size_t edgeCount, uint64_t id)
{
    std::vector<int> blocks;
    int at = kEntry;
    uint64_t remaining = id;
    for (size_t steps = 0; steps <= edgeCount; steps++) {
        const DagEdge *best = nullptr;
        for (const DagEdge *e : out[at + 1])
            if (e->val <= remaining && (!best || e->val > best->val)) best = e;
        if (!best) return {};
        remaining -= best->val;
        if (best->to == kExit) {
            if (remaining != 0) return {};
            return blocks;
        }
        at = best->to;
        blocks.push_back(at);
    }
    return {};
}

std::vector<int> regeneratePath(const Numbering &n, uint64_t id)
{
    return regenerate(edgesBySource(n), n.edges.size(), id);
}

std::string verifyNumbering(const Numbering &n, uint64_t limit)
{
    if (n.saturated || n.paths > limit) return "";
    auto out = edgesBySource(n);
    std::vector<uint8_t> seen(n.paths, 0);
    uint64_t count = 0;
    /* depth-first over the listing: a stack of (edge taken, next edge to try) */
    struct Frame {
        int node;
        size_t next;
        uint64_t sum;
    };
    std::vector<Frame> stack{{kEntry, 0, 0}};
    std::vector<int> blocks;
    while (!stack.empty()) {
        Frame &f = stack.back();
        if (f.next == out[f.node + 1].size()) {
            stack.pop_back();
            if (!blocks.empty() && !stack.empty()) blocks.pop_back();
            continue;
        }
        const DagEdge *e = out[f.node + 1][f.next++];
        uint64_t sum = f.sum + e->val;
        if (e->to != kExit) {
            if (stack.size() > n.reachable.size() + 1) return "a cycle in the acyclic graph";
            stack.push_back({e->to, 0, sum});
            blocks.push_back(e->to);
            continue;
        }
        if (++count > n.paths) return "more paths than NP(ENTRY)";
        if (sum >= n.paths)
            return "path sum " + std::to_string(sum) + " outside [0, " + std::to_string(n.paths) +
                   ")";
        if (seen[sum]) return "two paths with the sum " + std::to_string(sum);
        seen[sum] = 1;
        if (regenerate(out, n.edges.size(), sum) != blocks)
            return "path " + std::to_string(sum) + " does not regenerate to its blocks";
    }
    if (count != n.paths)
        return std::to_string(count) + " paths enumerated, NP(ENTRY) is " + std::to_string(n.paths);
    return "";
}

} // namespace shimpass
