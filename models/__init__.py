"""PyTorch networks, datasets, training and ONNX export; teacher and double-dummy data generation."""
