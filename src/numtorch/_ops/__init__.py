"""numtorch's differentiable op library, one module per family (see DESIGN.md section 2)."""
