//! Automatic layered layout of a directed graph (Sugiyama style), for content without stored
//! positions: each weakly connected component is laid out left to right (longest-path layers,
//! cycles broken by reversing the edges a depth-first search finds going back, long edges
//! split by virtual nodes, a few barycentre sweeps against crossings), and the components are
//! stacked top to bottom. No UI types; deterministic (ids are sorted, no hash iteration).

use std::collections::BTreeMap;

/// Spacing of the layout, in graph units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spacing {
    /// Distance between two layers (left to right).
    pub layer: f32,
    /// Distance between two rows of a layer (top to bottom).
    pub row: f32,
    /// Gap between two stacked components.
    pub component_gap: f32,
}

impl Default for Spacing {
    fn default() -> Self {
        Self { layer: 260.0, row: 140.0, component_gap: 80.0 }
    }
}

/// How many down-and-up barycentre sweeps reorder the layers.
const SWEEPS: usize = 4;

/// Positions (x right, y down; top-left of each node's slot) of `nodes` joined by `edges`
/// (`from`, `to`). Edges naming unknown nodes and self-loops are ignored; repeated edges count
/// once. The same input always gives the same output, whatever the order of `nodes`/`edges`.
pub fn layered_layout(nodes: &[&str], edges: &[(&str, &str)], spacing: Spacing) -> BTreeMap<String, (f32, f32)> {
    let mut ids: Vec<&str> = nodes.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let index: BTreeMap<&str, usize> = ids.iter().enumerate().map(|(at, id)| (*id, at)).collect();
    let mut pairs: Vec<(usize, usize)> = edges
        .iter()
        .filter_map(|(from, to)| Some((*index.get(from)?, *index.get(to)?)))
        .filter(|(from, to)| from != to)
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut positions = BTreeMap::new();
    let mut top = 0.0_f32;
    for component in components(ids.len(), &pairs) {
        let (placed, height) = layout_component(&component, &pairs, spacing);
        for (node, (x, y)) in placed {
            if let Some(id) = ids.get(node) {
                positions.insert((*id).to_owned(), (x, top + y));
            }
        }
        top += height + spacing.component_gap;
    }
    positions
}

/// The weakly connected components, each a sorted list of nodes, ordered by their first node.
fn components(count: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    fn find(parent: &mut [usize], mut node: usize) -> usize {
        while let Some(&up) = parent.get(node) {
            if up == node {
                break;
            }
            let grand = parent.get(up).copied().unwrap_or(up);
            if let Some(slot) = parent.get_mut(node) {
                *slot = grand;
            }
            node = up;
        }
        node
    }
    let mut parent: Vec<usize> = (0..count).collect();
    for &(a, b) in edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if let Some(slot) = parent.get_mut(ra.max(rb)) {
            *slot = ra.min(rb);
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for node in 0..count {
        let root = find(&mut parent, node);
        groups.entry(root).or_default().push(node);
    }
    groups.into_values().collect()
}

/// Node indices with their positions relative to the component's top-left.
type PlacedNodes = Vec<(usize, (f32, f32))>;

/// Lays out one component: node positions relative to its top-left, and its height.
fn layout_component(members: &[usize], all_edges: &[(usize, usize)], spacing: Spacing) -> (PlacedNodes, f32) {
    // Local indices 0..n in id order.
    let local: BTreeMap<usize, usize> = members.iter().enumerate().map(|(at, node)| (*node, at)).collect();
    let count = members.len();
    let edges: Vec<(usize, usize)> =
        all_edges.iter().filter_map(|(a, b)| Some((*local.get(a)?, *local.get(b)?))).collect();
    let acyclic = break_cycles(count, &edges);
    let layers = longest_path_layers(count, &acyclic);
    let (_, order) = order_layers(count, &acyclic, &layers);
    let rows = order.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let height = (rows - 1) as f32 * spacing.row;
    let mut placed = Vec::with_capacity(count);
    for (layer, row) in order.iter().enumerate() {
        // Each layer is centred on the component's middle row.
        let offset = (rows - row.len()) as f32 * spacing.row / 2.0;
        for (at, &node) in row.iter().enumerate() {
            if node < count
                && let Some(&original) = members.get(node)
            {
                placed.push((original, (layer as f32 * spacing.layer, offset + at as f32 * spacing.row)));
            }
        }
    }
    (placed, height)
}

/// The edges with every edge that closes a cycle reversed (found by an iterative depth-first
/// search from the nodes in order, sources first).
fn break_cycles(count: usize, edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut successors: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut has_input = vec![false; count];
    for &(a, b) in edges {
        if let Some(list) = successors.get_mut(a) {
            list.push(b);
        }
        if let Some(flag) = has_input.get_mut(b) {
            *flag = true;
        }
    }
    // 0 unvisited, 1 on the stack, 2 done.
    let mut mark = vec![0_u8; count];
    let mut reversed = std::collections::BTreeSet::new();
    let starts = (0..count).filter(|&n| !has_input.get(n).copied().unwrap_or(false)).chain(0..count);
    for start in starts {
        if mark.get(start).copied() != Some(0) {
            continue;
        }
        let mut stack = vec![(start, 0_usize)];
        if let Some(m) = mark.get_mut(start) {
            *m = 1;
        }
        while let Some((node, next)) = stack.last_mut() {
            let node = *node;
            let Some(&child) = successors.get(node).and_then(|list| list.get(*next)) else {
                if let Some(m) = mark.get_mut(node) {
                    *m = 2;
                }
                stack.pop();
                continue;
            };
            *next += 1;
            match mark.get(child).copied() {
                Some(0) => {
                    if let Some(m) = mark.get_mut(child) {
                        *m = 1;
                    }
                    stack.push((child, 0));
                }
                Some(1) => {
                    reversed.insert((node, child));
                }
                _ => {}
            }
        }
    }
    let mut result: Vec<(usize, usize)> =
        edges.iter().map(|&(a, b)| if reversed.contains(&(a, b)) { (b, a) } else { (a, b) }).collect();
    result.sort_unstable();
    result.dedup();
    result
}

/// The layer of each node: the longest path to it from a source (Kahn's order).
fn longest_path_layers(count: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut successors: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut inputs = vec![0_usize; count];
    for &(a, b) in edges {
        if let Some(list) = successors.get_mut(a) {
            list.push(b);
        }
        if let Some(n) = inputs.get_mut(b) {
            *n += 1;
        }
    }
    let mut layer = vec![0_usize; count];
    let mut ready: std::collections::VecDeque<usize> = (0..count).filter(|&n| inputs.get(n) == Some(&0)).collect();
    while let Some(node) = ready.pop_front() {
        let here = layer.get(node).copied().unwrap_or(0);
        for &child in successors.get(node).map_or(&[][..], Vec::as_slice) {
            if let Some(l) = layer.get_mut(child) {
                *l = (*l).max(here + 1);
            }
            if let Some(n) = inputs.get_mut(child) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    ready.push_back(child);
                }
            }
        }
    }
    layer
}

/// Splits edges longer than one layer with virtual nodes (indices from `count` on), then orders
/// each layer by barycentre sweeps. Returns the layer of every node (virtual ones included) and
/// the nodes of each layer in order.
fn order_layers(count: usize, edges: &[(usize, usize)], layers: &[usize]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut layer_of: Vec<usize> = layers.to_vec();
    let mut segments: Vec<(usize, usize)> = Vec::with_capacity(edges.len());
    for &(a, b) in edges {
        let (la, lb) = (layer_of.get(a).copied().unwrap_or(0), layer_of.get(b).copied().unwrap_or(0));
        let mut previous = a;
        for layer in la + 1..lb {
            let virtual_node = layer_of.len();
            layer_of.push(layer);
            segments.push((previous, virtual_node));
            previous = virtual_node;
        }
        segments.push((previous, b));
    }
    let total = layer_of.len();
    let depth = layer_of.iter().copied().max().map_or(0, |max| max + 1);
    let mut up: Vec<Vec<usize>> = vec![Vec::new(); total];
    let mut down: Vec<Vec<usize>> = vec![Vec::new(); total];
    for &(a, b) in &segments {
        if let Some(list) = down.get_mut(a) {
            list.push(b);
        }
        if let Some(list) = up.get_mut(b) {
            list.push(a);
        }
    }
    // Initial order: a depth-first walk from the sources keeps chains together.
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); depth];
    let mut seen = vec![false; total];
    let mut roots: Vec<usize> = (0..count).filter(|&n| up.get(n).is_none_or(Vec::is_empty)).collect();
    roots.extend(0..total);
    for root in roots {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if seen.get(node).copied().unwrap_or(true) {
                continue;
            }
            if let Some(flag) = seen.get_mut(node) {
                *flag = true;
            }
            if let Some(row) = layer_of.get(node).and_then(|&layer| order.get_mut(layer)) {
                row.push(node);
            }
            for &child in down.get(node).map_or(&[][..], Vec::as_slice).iter().rev() {
                stack.push(child);
            }
        }
    }
    let mut position = vec![0.0_f32; total];
    for row in &order {
        for (at, &node) in row.iter().enumerate() {
            if let Some(p) = position.get_mut(node) {
                *p = at as f32;
            }
        }
    }
    for sweep in 0..SWEEPS * 2 {
        let downward = sweep % 2 == 0;
        let layer_range: Vec<usize> =
            if downward { (1..depth).collect() } else { (0..depth.saturating_sub(1)).rev().collect() };
        for layer in layer_range {
            let neighbours = if downward { &up } else { &down };
            let Some(row) = order.get_mut(layer) else { continue };
            let mut keyed: Vec<(f32, f32, usize)> = row
                .iter()
                .map(|&node| {
                    let here = position.get(node).copied().unwrap_or(0.0);
                    let around = neighbours.get(node).map_or(&[][..], Vec::as_slice);
                    let centre = if around.is_empty() {
                        here
                    } else {
                        around.iter().map(|&n| position.get(n).copied().unwrap_or(0.0)).sum::<f32>()
                            / around.len() as f32
                    };
                    (centre, here, node)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
            *row = keyed.into_iter().map(|(_, _, node)| node).collect();
            for (at, &node) in row.iter().enumerate() {
                if let Some(p) = position.get_mut(node) {
                    *p = at as f32;
                }
            }
        }
    }
    (layer_of, order)
}

/// How many pairs of segments between adjacent layers cross, for positions by node (tests and
/// benches judge a layout with it).
pub fn crossings(positions: &BTreeMap<String, (f32, f32)>, edges: &[(&str, &str)]) -> usize {
    let segments: Vec<((f32, f32), (f32, f32))> = edges
        .iter()
        .filter_map(|(a, b)| Some((*positions.get(*a)?, *positions.get(*b)?)))
        .filter(|(a, b)| b.0 > a.0)
        .collect();
    let mut count = 0;
    for (at, first) in segments.iter().enumerate() {
        for second in segments.iter().skip(at + 1) {
            let same_span =
                (first.0.0 - second.0.0).abs() < f32::EPSILON && (first.1.0 - second.1.0).abs() < f32::EPSILON;
            if same_span && (first.0.1 - second.0.1) * (first.1.1 - second.1.1) < 0.0 {
                count += 1;
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn a_chain_goes_left_to_right_one_layer_each() {
        let positions = layered_layout(&["c", "a", "b"], &[("a", "b"), ("b", "c")], Spacing::default());
        assert!(positions["a"].0 < positions["b"].0 && positions["b"].0 < positions["c"].0);
        assert!((positions["a"].1 - positions["c"].1).abs() < f32::EPSILON);
    }

    #[test]
    fn the_layout_is_the_same_whatever_the_input_order() {
        let nodes = ["a", "b", "c", "d", "e", "f"];
        let edges = [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("d", "e"), ("e", "b"), ("a", "f")];
        let first = layered_layout(&nodes, &edges, Spacing::default());
        let mut nodes_reversed = nodes;
        nodes_reversed.reverse();
        let mut edges_reversed = edges;
        edges_reversed.reverse();
        assert_eq!(first, layered_layout(&nodes_reversed, &edges_reversed, Spacing::default()));
        assert_eq!(first.len(), 6);
    }

    #[test]
    fn cycles_and_self_loops_still_lay_out_every_node() {
        let positions =
            layered_layout(&["a", "b", "c"], &[("a", "b"), ("b", "c"), ("c", "a"), ("b", "b")], Spacing::default());
        assert_eq!(positions.len(), 3);
        let xs: std::collections::BTreeSet<i64> = positions.values().map(|p| p.0 as i64).collect();
        assert_eq!(xs.len(), 3, "three layers: {positions:?}");
    }

    #[test]
    fn barycentre_sweeps_remove_avoidable_crossings() {
        // a1→b2 and a2→b1 cross in input order; the sweeps uncross them.
        let nodes = ["a1", "a2", "b1", "b2", "r"];
        let edges = [("r", "a1"), ("r", "a2"), ("a1", "b2"), ("a2", "b1")];
        let positions = layered_layout(&nodes, &edges, Spacing::default());
        assert_eq!(crossings(&positions, &edges), 0, "{positions:?}");
    }

    #[test]
    fn separate_components_are_stacked() {
        let positions = layered_layout(&["a", "b", "x", "y"], &[("a", "b"), ("x", "y")], Spacing::default());
        assert!(positions["x"].1 > positions["a"].1);
        assert!((positions["a"].0 - positions["x"].0).abs() < f32::EPSILON);
    }
}
