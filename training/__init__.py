"""Making nets: self-play TD training, labelling by our own search and rollouts, distillation,
the one-sided race net, recipes, and the torch (device) move generator and self-play."""
